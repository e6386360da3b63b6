package catalogrecords

import (
	"fmt"
	"strings"
)

// The media types links carry.
const (
	MediaJSON     = "application/json"
	MediaHTML     = "text/html"
	MediaGeoJSON  = "application/geo+json"
	MediaXML      = "application/xml"
	MediaMVT      = "application/vnd.mapbox-vector-tile"
	MediaTileJSON = "application/vnd.mapbox.tilejson+json"
)

// plural is the path segment of a record type in the REST API and on the
// HTML pages.
func (t Type) plural() string {
	switch t {
	case Item:
		return "items"
	}
	return string(t) + "s"
}

// publicID is the id in URLs (catalog items carry a "c").
func (r *Record) publicID() string {
	if r.Type == Item {
		return fmt.Sprintf("c%d", r.ID)
	}
	return fmt.Sprint(r.ID)
}

// APIURL is the record's REST resource under origin (scheme://host).
func (r *Record) APIURL(origin string) string {
	return fmt.Sprintf("%s/services/api/v1.x/%s/%s/", strings.TrimRight(origin, "/"), r.Type.plural(), r.publicID())
}

// HTMLURL is the record's web page under origin.
func (r *Record) HTMLURL(origin string) string {
	return fmt.Sprintf("%s/%s/%s/", strings.TrimRight(origin, "/"), r.Type.plural(), r.publicID())
}

// Protocols maps a service link to the protocol name harvesters read
// (the OGC/ESRI names GeoNetwork and CKAN use in gmd:protocol and
// dct:conformsTo).
var Protocols = map[string]string{
	"ogc-features": "OGC:API-Features",
	"wfs":          "OGC:WFS",
	"wmts":         "OGC:WMTS",
	"csw":          "OGC:CSW",
	"tiles":        "OGC:API-Tiles",
	"tilejson":     "TileJSON",
	"export":       "WWW:DOWNLOAD",
	"download":     "WWW:DOWNLOAD",
	"esri-map":     "ESRI:REST",
}

// Protocol is a link's protocol name, "WWW:LINK" when it has none.
func (l Link) Protocol() string {
	if p, ok := Protocols[l.Service]; ok {
		return p
	}
	return "WWW:LINK"
}

// FillLinks sets r.Links from what r holds (type, id, Services, Formats)
// under origin: the REST resource, the HTML page, the CSW record, one
// link per data service the caller may use, and the downloads.
func (r *Record) FillLinks(origin string) {
	o := strings.TrimRight(origin, "/")
	links := []Link{
		{Href: r.APIURL(o), Rel: "self", Type: MediaJSON, Title: "This dataset in the REST API"},
		{Href: r.HTMLURL(o), Rel: "alternate", Type: MediaHTML, Title: "This dataset's web page"},
		{Href: o + "/services/csw/?service=CSW&version=2.0.2&request=GetRecordById&outputSchema=http://www.isotc211.org/2005/gmd&elementSetName=full&id=" + r.Identifier,
			Rel: "describedby", Type: MediaXML, Title: "ISO 19139 metadata", Service: "csw"},
	}
	if r.License != nil && r.License.URL != "" {
		links = append(links, Link{Href: r.License.URL, Rel: "license", Type: MediaHTML, Title: r.License.Title})
	}
	has := map[string]bool{}
	for _, s := range r.Services {
		has[s] = true
	}
	layerLike := r.Type == Layer || r.Type == Table
	if layerLike && has["wfs"] {
		coll := fmt.Sprintf("%s-%d", r.Type, r.ID)
		links = append(links,
			Link{Href: o + "/services/ogc/features/collections/" + coll, Rel: "service", Type: MediaJSON, Title: "OGC API - Features collection", Service: "ogc-features"},
			Link{Href: o + "/services/ogc/features/collections/" + coll + "/items", Rel: "service", Type: MediaGeoJSON, Title: "OGC API - Features items", Service: "ogc-features"},
			Link{Href: o + "/services/wfs/?service=WFS&request=GetCapabilities", Rel: "service", Type: MediaXML, Title: "WFS (feature type geopub:" + coll + ")", Service: "wfs"},
		)
	}
	if (r.Type == Layer || r.Type == Set) && has["tiles"] {
		ref := fmt.Sprintf("%s=%d", r.Type, r.ID)
		links = append(links, Link{Href: o + "/services/tiles/v1/" + ref + "/tile.json", Rel: "service", Type: MediaTileJSON, Title: "Vector tiles (TileJSON)", Service: "tilejson"})
	}
	if (r.Type == Layer || r.Type == Set) && has["wmts"] {
		links = append(links, Link{Href: fmt.Sprintf("%s/services/wmts/1.0.0/%s/%d?SERVICE=WMTS&REQUEST=GetCapabilities", o, r.Type, r.ID), Rel: "service", Type: MediaXML, Title: "WMTS", Service: "wmts"})
	}
	for _, f := range r.Formats {
		if f.Export {
			links = append(links, Link{Href: f.URL, Rel: "export", Type: f.MediaType, Title: "Export as " + f.Name, Service: "export"})
			continue
		}
		links = append(links, Link{Href: f.URL, Rel: "enclosure", Type: f.MediaType, Title: "Download " + f.Name, Service: "download"})
	}
	r.Links = links
}
