package catalogrecords

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Type is a record's dataset type, as /data/ names it.
type Type string

// The record types.
const (
	Layer    Type = "layer"
	Table    Type = "table"
	Set      Type = "set"
	Document Type = "document"
	Item     Type = "item"
)

// Types lists every record type, in the order GetDomain answers them.
var Types = []Type{Layer, Table, Set, Document, Item}

// Record is one published dataset as harvesters see it.
type Record struct {
	// Identifier is stable across versions: "layer-12", "table-3",
	// "set-4", "document-5", "item-c7" (ParseIdentifier reads it back).
	Identifier string
	Type       Type
	// Kind refines Type (vector, raster, grid, pointcloud, table, set,
	// document, item), as the catalogue's kind filter does.
	Kind string
	// ID is the dataset's number (a catalog item's without its "c").
	ID int
	// VersionID is the published version the record describes.
	VersionID int

	Title    string
	Abstract string
	// Keywords are the tags (or the uploaded document's keywords).
	Keywords []string
	// Themes are the categories, key ("parent/child") and display name.
	Themes []Theme
	// BBox is [west, south, east, north] in EPSG:4326; nil when the
	// dataset has no extent (tables, documents).
	BBox []float64
	// CRS is the dataset's own CRS ("EPSG:2193"), "" when unknown.
	CRS string

	Created   time.Time
	Modified  time.Time
	Published time.Time
	// TimeStart and TimeEnd are the temporal coverage of the data where
	// known (an uploaded ISO document's temporal extent); nil ends are
	// open or unknown.
	TimeStart, TimeEnd *time.Time

	License *License
	// Publisher is the owning group, else the publishing user.
	Publisher Party
	// GroupID is the owning group, 0 when a user owns the dataset.
	GroupID int
	// Contact is who to ask about the data: the publisher, with the
	// site's contact address when the publisher has none.
	Contact Party

	// Links are the distributions and related pages (Links fills them).
	Links []Link
	// Services are the keys of the data services the caller may use on
	// the dataset (wfs, tiles, wmts, csw, export, ...).
	Services []string
	// Formats are the export formats the caller may download, as media
	// types (e.g. "application/geopackage+sqlite3"), for layers with
	// the export service.
	Formats []Format

	// ISO is the dataset's uploaded metadata document when it is ISO
	// 19139 (gmd:MD_Metadata) or ISO 19115-3 (mdb:MD_Metadata); nil
	// otherwise. ISOFormat says which ("19139", "19115-3").
	ISO       []byte
	ISOFormat string
}

// Theme is a category.
type Theme struct {
	Key  string
	Name string
}

// License is the licence a version is published under.
type License struct {
	// Type is the catalogue's licence type (cc-by, public-domain, ...).
	Type    string
	Version string
	Title   string
	// URL is the licence's canonical page; "" when unknown.
	URL string
}

// Party is a publisher or contact: a group (Organization) or a user
// (Person).
type Party struct {
	Kind string // "organization" or "person"
	// ID is the group's or user's id.
	ID    int
	Name  string
	Email string
	// URL is the party's page on the site.
	URL string
}

// Format is an export format a layer can be downloaded in.
type Format struct {
	Name      string // GeoPackage, Shapefile, ...
	MediaType string
	// URL downloads the data in this format, or, when Export is set,
	// is where an export in it is requested (a POST that starts a job,
	// not a file a harvester can fetch).
	URL    string
	Export bool
}

// Link is one distribution or related page.
type Link struct {
	Href string
	// Rel: "self" (REST resource), "alternate" (HTML page), "service"
	// (a data service endpoint), "enclosure" (a download), "export"
	// (where an export in a format is requested), "describedby" (a
	// metadata document), "license".
	Rel   string
	Type  string // media type
	Title string
	// Service is the data service key for Rel "service" (wfs, tiles,
	// ogc-features, wmts, ...), also the protocol harvesters read
	// (OGC:WFS, OGC:WMTS, ...) through Protocol.
	Service string
}

// Identifier formats a record's identifier.
func Identifier(t Type, id int) string {
	if t == Item {
		return "item-c" + strconv.Itoa(id)
	}
	return string(t) + "-" + strconv.Itoa(id)
}

// ParseIdentifier reads an identifier back; ok is false when s is not one
// of ours.
func ParseIdentifier(s string) (t Type, id int, ok bool) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 {
		return "", 0, false
	}
	t, num := Type(s[:i]), s[i+1:]
	if t == Item {
		if !strings.HasPrefix(num, "c") {
			return "", 0, false
		}
		num = num[1:]
	}
	switch t {
	case Layer, Table, Set, Document, Item:
	default:
		return "", 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || strconv.Itoa(n) != num {
		return "", 0, false
	}
	return t, n, true
}

// String is the identifier.
func (r *Record) String() string { return fmt.Sprintf("%s (%s)", r.Identifier, r.Title) }
