package ogcrecords

import (
	"net/url"
	"slices"
	"sort"

	"github.com/geopub/geopub/internal/catalogrecords"
	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// Link is an OGC API link.
type Link = of.Link

// Media types the API writes.
const (
	TypeJSON    = of.TypeJSON
	TypeGeoJSON = of.TypeGeoJSON
	TypeHTML    = of.TypeHTML
	TypeOpenAPI = of.TypeOpenAPI
	TypeSchema  = of.TypeSchema
	// TypeISO is the full form of a record, its ISO 19139 document.
	TypeISO = "application/vnd.iso.19139+xml"
)

const recordsConf = "http://www.opengis.net/spec/ogcapi-records-1/1.0/conf/"

// conformance lists the classes the API implements and its tests check:
// Records' core, record core and collection, the searchable catalogue
// with sorting and filtering, JSON and HTML, and the CQL2 of
// internal/cql2 (the same as OGC API - Features').
var conformance = []string{
	"http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core",
	"http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/collections",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
	recordsConf + "core",
	recordsConf + "record-core",
	recordsConf + "record-collection",
	recordsConf + "record-api",
	recordsConf + "searchable-catalog",
	recordsConf + "sorting",
	recordsConf + "searchable-catalog/sorting",
	recordsConf + "searchable-catalog/filtering",
	recordsConf + "json",
	recordsConf + "html",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
	"http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
	"http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
	"http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
	"http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
	"http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
	"http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison",
	"http://www.opengis.net/spec/cql2/1.0/conf/accent-insensitive-comparison",
}

// Conformance lists the conformance classes.
func Conformance() []string { return slices.Clone(conformance) }

// Landing is the landing page.
type Landing = of.Landing

// NewLanding describes the API at base (its root, without a final
// slash).
func NewLanding(base string) Landing {
	return Landing{Title: "Geopub OGC API - Records",
		Description: "The catalogue of published datasets as OGC API - Records: one collection for the whole catalogue and one per publishing group.",
		Links: []Link{
			{Href: base + "/", Rel: "self", Type: TypeJSON, Title: "This document"},
			{Href: base + "/?f=html", Rel: "alternate", Type: TypeHTML, Title: "This document as HTML"},
			{Href: base + "/api", Rel: "service-desc", Type: TypeOpenAPI, Title: "The API definition (OpenAPI 3.0)"},
			{Href: base + "/conformance", Rel: "conformance", Type: TypeJSON, Title: "Conformance classes"},
			{Href: base + "/collections", Rel: "data", Type: TypeJSON, Title: "Collections"},
			{Href: base + "/collections/" + CatalogueID, Rel: "http://www.opengis.net/def/rel/ogc/1.0/ogc-catalog", Type: TypeJSON, Title: "The whole catalogue"},
		}}
}

// CollectionDoc describes one collection.
type CollectionDoc struct {
	ID          string     `json:"id"`
	Type        string     `json:"type"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	ItemType    string     `json:"itemType"`
	Extent      *of.Extent `json:"extent"`
	CRS         []string   `json:"crs"`
	Links       []Link     `json:"links"`
}

// NewCollectionDoc describes c; base is the API root.
func NewCollectionDoc(c Collection, base string) CollectionDoc {
	self := base + "/collections/" + url.PathEscape(c.ID)
	return CollectionDoc{ID: c.ID, Type: "Catalog", Title: c.Title, Description: c.Description, ItemType: "record",
		CRS:    []string{of.CRS84URI},
		Extent: &of.Extent{Spatial: &of.SpatialExtent{BBox: [][]float64{{-180, -90, 180, 90}}, CRS: of.CRS84URI}},
		Links: []Link{
			{Href: self, Rel: "self", Type: TypeJSON, Title: "This collection"},
			{Href: self + "?f=html", Rel: "alternate", Type: TypeHTML, Title: "This collection as HTML"},
			{Href: self + "/items", Rel: "items", Type: TypeGeoJSON, Title: "Records"},
			{Href: self + "/items?f=html", Rel: "items", Type: TypeHTML, Title: "Records as HTML"},
			{Href: self + "/queryables", Rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables", Type: TypeSchema, Title: "Queryables"},
			{Href: self + "/sortables", Rel: "http://www.opengis.net/def/rel/ogc/1.0/sortables", Type: TypeSchema, Title: "Sortables"},
		}}
}

// CollectionsDoc lists collections.
type CollectionsDoc struct {
	Links       []Link          `json:"links"`
	Collections []CollectionDoc `json:"collections"`
}

// NewCollectionsDoc lists cs.
func NewCollectionsDoc(cs []Collection, base string) CollectionsDoc {
	d := CollectionsDoc{Collections: []CollectionDoc{}, Links: []Link{
		{Href: base + "/collections", Rel: "self", Type: TypeJSON, Title: "This document"},
		{Href: base + "/collections?f=html", Rel: "alternate", Type: TypeHTML, Title: "This document as HTML"},
	}}
	for _, c := range cs {
		d.Collections = append(d.Collections, NewCollectionDoc(c, base))
	}
	return d
}

// queryableTypes are the JSON Schema types of the Queryables.
var queryableTypes = map[string]map[string]any{
	"created":   {"type": "string", "format": "date-time"},
	"updated":   {"type": "string", "format": "date-time"},
	"published": {"type": "string", "format": "date-time"},
	"geometry":  {"format": "geometry-polygon", "x-ogc-role": "primary-geometry"},
	"id":        {"type": "string", "x-ogc-role": "id"},
	"type":      {"type": "string", "enum": []string{"layer", "table", "set", "document", "item"}},
}

// Queryables is the JSON Schema of the properties a filter may name
// (catalogrecords.Queryables).
func Queryables(self string) map[string]any {
	props := map[string]any{}
	for name, desc := range catalogrecords.Queryables {
		p := map[string]any{"title": name, "description": desc, "type": "string"}
		for k, v := range queryableTypes[name] {
			p[k] = v
		}
		if name == "geometry" {
			delete(p, "type")
		}
		props[name] = p
	}
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": self,
		"type": "object", "title": "Catalogue record queryables", "properties": props,
		"additionalProperties": false,
	}
}

// Sortables is the JSON Schema of what sortby takes.
func Sortables(self string) map[string]any {
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": self,
		"type": "object", "title": "Catalogue record sortables",
		"properties": map[string]any{
			"title":   map[string]any{"type": "string", "description": catalogrecords.Queryables["title"]},
			"updated": map[string]any{"type": "string", "format": "date-time", "description": catalogrecords.Queryables["updated"]},
		},
	}
}

// QueryableNames lists the queryables in order, for the HTML page.
func QueryableNames() []string {
	names := make([]string, 0, len(catalogrecords.Queryables))
	for n := range catalogrecords.Queryables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
