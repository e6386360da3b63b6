package ogcrecords

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/catalogrecords"
)

// RecordCoreConf is what every record declares it conforms to.
const RecordCoreConf = "http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core"

// Record is a catalogue record as OGC API - Records' record core: a
// GeoJSON Feature.
type Record struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	ConformsTo []string        `json:"conformsTo"`
	Geometry   json.RawMessage `json:"geometry"`
	// Time is the data's temporal extent where known (an uploaded ISO
	// document's), {"interval": [start, end]} with ".." for an open end;
	// else null.
	Time       any              `json:"time"`
	Properties RecordProperties `json:"properties"`
	Links      []Link           `json:"links"`
}

// RecordProperties are record core's properties.
type RecordProperties struct {
	Type        string    `json:"type"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	Keywords    []string  `json:"keywords,omitempty"`
	Themes      []Theme   `json:"themes,omitempty"`
	Contacts    []Contact `json:"contacts,omitempty"`
	License     string    `json:"license,omitempty"`
	Created     string    `json:"created,omitempty"`
	Updated     string    `json:"updated,omitempty"`
	Formats     []Format  `json:"formats,omitempty"`
	// Kind and Published are the catalogue's own (the dataset's kind
	// and when its version was published).
	Kind      string `json:"geopub:kind,omitempty"`
	Published string `json:"geopub:published,omitempty"`
}

// Theme is a set of concepts from one scheme.
type Theme struct {
	Concepts []Concept `json:"concepts"`
	Scheme   string    `json:"scheme"`
}

// Concept is one theme concept.
type Concept struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

// Contact is a party and its roles.
type Contact struct {
	Name         string   `json:"name,omitempty"`
	Organization string   `json:"organization,omitempty"`
	Emails       []Value  `json:"emails,omitempty"`
	Links        []Link   `json:"links,omitempty"`
	Roles        []string `json:"roles"`
}

// Value is a contact's email.
type Value struct {
	Value string `json:"value"`
}

// Format is a distribution format.
type Format struct {
	Name      string `json:"name"`
	MediaType string `json:"mediaType,omitempty"`
}

// CategoryScheme names the scheme of the catalogue's categories.
const CategoryScheme = "geopub:categories"

// NewRecord renders r as a record of collection coll; base is the API
// root.
func NewRecord(r *catalogrecords.Record, coll, base string) Record {
	self := ItemURL(base, coll, r.Identifier)
	out := Record{ID: r.Identifier, Type: "Feature", ConformsTo: []string{RecordCoreConf},
		Geometry: geometry(r.BBox), Time: interval(r.TimeStart, r.TimeEnd),
		Properties: RecordProperties{
			Type: "dataset", Title: r.Title, Description: r.Abstract, Keywords: r.Keywords,
			License: License(r.License), Created: stamp(r.Created), Updated: stamp(r.Modified),
			Kind: r.Kind, Published: stamp(r.Published),
		},
		Links: []Link{
			{Href: self, Rel: "self", Type: TypeGeoJSON, Title: "This record"},
			{Href: self + "?f=html", Rel: "alternate", Type: TypeHTML, Title: "This record as HTML"},
			{Href: self + "?f=iso", Rel: "alternate", Type: catalogrecords.MediaXML, Title: "This record as ISO 19139"},
			{Href: base + "/collections/" + url.PathEscape(coll), Rel: "collection", Type: TypeJSON, Title: "The collection"},
		},
	}
	if len(r.Themes) > 0 {
		th := Theme{Scheme: CategoryScheme}
		for _, t := range r.Themes {
			th.Concepts = append(th.Concepts, Concept{ID: t.Key, Title: t.Name})
		}
		out.Properties.Themes = []Theme{th}
	}
	out.Properties.Contacts = contacts(r)
	for _, f := range r.Formats {
		out.Properties.Formats = append(out.Properties.Formats, Format{Name: f.Name, MediaType: f.MediaType})
	}
	for _, l := range r.Links {
		out.Links = append(out.Links, Link{Href: l.Href, Rel: distributionRel(l.Rel), Type: l.Type, Title: l.Title})
	}
	return out
}

// distributionRel is the relation of one of the record's own links from
// the record: the REST resource and the web page are what it describes
// ("self" and "alternate" name the record itself here).
func distributionRel(rel string) string {
	switch rel {
	case "self", "alternate":
		return "describes"
	}
	return rel
}

// ItemURL is a record's URL in collection coll.
func ItemURL(base, coll, id string) string {
	return base + "/collections/" + url.PathEscape(coll) + "/items/" + url.PathEscape(id)
}

// contacts are the publisher and, when another, the contact point.
func contacts(r *catalogrecords.Record) []Contact {
	var out []Contact
	add := func(p catalogrecords.Party, role string) {
		if p.Name == "" && p.Email == "" {
			return
		}
		for i := range out {
			if out[i].Name == p.Name || (out[i].Organization != "" && out[i].Organization == p.Name) {
				out[i].Roles = append(out[i].Roles, role)
				return
			}
		}
		c := Contact{Roles: []string{role}}
		if p.Kind == "organization" {
			c.Organization = p.Name
		} else {
			c.Name = p.Name
		}
		if p.Email != "" {
			c.Emails = []Value{{Value: p.Email}}
		}
		if p.URL != "" {
			c.Links = []Link{{Href: p.URL, Rel: "about", Type: TypeHTML}}
		}
		out = append(out, c)
	}
	add(r.Publisher, "publisher")
	add(r.Contact, "pointOfContact")
	return out
}

// spdx maps the catalogue's licence types onto SPDX ids (with the
// version appended where SPDX versions them).
var spdx = map[string]string{
	"cc-by": "CC-BY", "cc-by-sa": "CC-BY-SA", "cc-by-nd": "CC-BY-ND", "cc-by-nc": "CC-BY-NC",
	"cc-by-nc-sa": "CC-BY-NC-SA", "cc-by-nc-nd": "CC-BY-NC-ND", "cc0": "CC0", "odbl": "ODbL", "odc-by": "ODC-By",
	"pddl": "PDDL",
}

// License is a licence as record core's license: an SPDX id when it
// has one (CC-BY-4.0), else the licence's title or type; "" for none.
func License(l *catalogrecords.License) string {
	if l == nil {
		return ""
	}
	if id, ok := spdx[strings.ToLower(l.Type)]; ok && l.Version != "" {
		return id + "-" + l.Version
	}
	if l.Title != "" {
		return l.Title
	}
	return l.Type
}

// geometry is the extent as a GeoJSON polygon, null without one.
func geometry(b []float64) json.RawMessage {
	if len(b) != 4 {
		return json.RawMessage("null")
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	w, s, e, n := f(b[0]), f(b[1]), f(b[2]), f(b[3])
	c := func(x, y string) string { return "[" + x + "," + y + "]" }
	return json.RawMessage(`{"type":"Polygon","coordinates":[[` + strings.Join([]string{c(w, s), c(e, s), c(e, n), c(w, n), c(w, s)}, ",") + `]]}`)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// FeatureCollection is an items page.
type FeatureCollection struct {
	Type           string   `json:"type"`
	Features       []Record `json:"features"`
	NumberMatched  int      `json:"numberMatched"`
	NumberReturned int      `json:"numberReturned"`
	TimeStamp      string   `json:"timeStamp"`
	Links          []Link   `json:"links"`
}

// NewFeatureCollection renders page of collection coll; query is the
// request's query string without f, cursor and key (the links repeat
// it).
func NewFeatureCollection(page *catalogrecords.Page, coll, base string, query url.Values, now time.Time) FeatureCollection {
	fc := FeatureCollection{Type: "FeatureCollection", Features: []Record{}, NumberMatched: page.Matched,
		NumberReturned: len(page.Records), TimeStamp: now.UTC().Format(time.RFC3339), Links: ItemsLinks(coll, base, query, page.Next)}
	for i := range page.Records {
		fc.Features = append(fc.Features, NewRecord(&page.Records[i], coll, base))
	}
	return fc
}

// ItemsLinks are an items page's links: self, alternate, collection and
// next when there is a next page.
func ItemsLinks(coll, base string, query url.Values, next string) []Link {
	items := base + "/collections/" + url.PathEscape(coll) + "/items"
	with := func(f, cursor string) string {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		if f != "" {
			q.Set("f", f)
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if len(q) == 0 {
			return items
		}
		return items + "?" + q.Encode()
	}
	links := []Link{
		{Href: with("", ""), Rel: "self", Type: TypeGeoJSON, Title: "This page"},
		{Href: with("html", ""), Rel: "alternate", Type: TypeHTML, Title: "This page as HTML"},
		{Href: base + "/collections/" + url.PathEscape(coll), Rel: "collection", Type: TypeJSON, Title: "The collection"},
	}
	if next != "" {
		links = append(links, Link{Href: with("", next), Rel: "next", Type: TypeGeoJSON, Title: "Next page"})
	}
	return links
}

// interval is record core's time of a temporal extent; nil when there is
// none.
func interval(start, end *time.Time) any {
	if start == nil && end == nil {
		return nil
	}
	end2 := func(t *time.Time) string {
		if t == nil {
			return ".."
		}
		return t.UTC().Format(time.RFC3339)
	}
	return map[string][]string{"interval": {end2(start), end2(end)}}
}
