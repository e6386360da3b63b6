package ogcfeatures

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/geopub/geopub/internal/cql2"
)

// Media types the service writes.
const (
	TypeJSON    = "application/json"
	TypeGeoJSON = "application/geo+json"
	TypeHTML    = "text/html"
	TypeOpenAPI = "application/vnd.oai.openapi+json;version=3.0"
)

// conformance lists the conformance classes the service implements and
// its tests check, but for those that depend on GEOS.
var conformance = []string{
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
	"http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
	"http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
	"http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
	"http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
	"http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
	"http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
	"http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus",
	"http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison",
	"http://www.opengis.net/spec/cql2/1.0/conf/accent-insensitive-comparison",
}

// SpatialFunctionsClass is CQL2's Spatial Functions conformance class
// (S_EQUALS, S_TOUCHES, S_WITHIN, ... besides S_INTERSECTS), declared only
// where GDAL has GEOS to evaluate them.
const SpatialFunctionsClass = "http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions"

// Conformance lists the conformance classes the service implements and
// its tests check: Spatial Functions only when they can be evaluated.
func Conformance() []string {
	out := slices.Clone(conformance)
	if cql2.SpatialFunctionsServed() {
		out = append(out, SpatialFunctionsClass)
	}
	return out
}

// TypeSchema is the media type of queryables.
const TypeSchema = "application/schema+json"

// AdvertisedCRS are the CRSs each collection lists; any other EPSG code
// PROJ knows is accepted as well.
var AdvertisedCRS = []string{CRS84URI, epsgPrefix + "4326", epsgPrefix + "3857", epsgPrefix + "2193"}

// Link is an OGC API link.
type Link struct {
	Href  string `json:"href"`
	Rel   string `json:"rel"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title,omitempty"`
}

// Landing is the landing page.
type Landing struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Links       []Link `json:"links"`
}

// NewLanding describes the API at base (the absolute URL of its root,
// without a trailing slash).
func NewLanding(base string) Landing {
	return Landing{Title: "Geopub OGC API - Features",
		Description: "Published layers and tables as OGC API - Features collections.",
		Links: []Link{
			{Href: base + "/", Rel: "self", Type: TypeJSON, Title: "This document"},
			{Href: base + "/?f=html", Rel: "alternate", Type: TypeHTML, Title: "This document as HTML"},
			{Href: base + "/api", Rel: "service-desc", Type: TypeOpenAPI, Title: "The API definition (OpenAPI 3.0)"},
			{Href: base + "/api?f=html", Rel: "service-doc", Type: TypeHTML, Title: "The API definition as HTML"},
			{Href: base + "/conformance", Rel: "conformance", Type: TypeJSON, Title: "Conformance classes"},
			{Href: base + "/collections", Rel: "data", Type: TypeJSON, Title: "Collections"},
		}}
}

// ConformanceDoc is the conformance declaration.
type ConformanceDoc struct {
	ConformsTo []string `json:"conformsTo"`
}

// Extent is a collection's extent.
type Extent struct {
	Spatial  *SpatialExtent  `json:"spatial,omitempty"`
	Temporal *TemporalExtent `json:"temporal,omitempty"`
}

// TemporalExtent is the first and last time of a collection.
type TemporalExtent struct {
	Interval [][]string `json:"interval"`
	TRS      string     `json:"trs"`
}

// SpatialExtent is a CRS84 bbox.
type SpatialExtent struct {
	BBox [][]float64 `json:"bbox"`
	CRS  string      `json:"crs"`
}

// CollectionDoc describes one collection.
type CollectionDoc struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	ItemType    string   `json:"itemType"`
	Extent      *Extent  `json:"extent,omitempty"`
	CRS         []string `json:"crs"`
	StorageCRS  string   `json:"storageCrs"`
	Links       []Link   `json:"links"`
}

// NewCollectionDoc describes c; base is the API root.
func NewCollectionDoc(c *Collection, base string) CollectionDoc {
	self := base + "/collections/" + url.PathEscape(c.ID)
	d := CollectionDoc{ID: c.ID, Title: c.Title, Description: c.Description, ItemType: "feature",
		CRS: AdvertisedCRS, StorageCRS: CRS84URI,
		Links: []Link{
			{Href: self, Rel: "self", Type: TypeJSON, Title: "This collection"},
			{Href: self + "?f=html", Rel: "alternate", Type: TypeHTML, Title: "This collection as HTML"},
			{Href: self + "/items", Rel: "items", Type: TypeGeoJSON, Title: "Features"},
			{Href: self + "/items?f=html", Rel: "items", Type: TypeHTML, Title: "Features as HTML"},
			{Href: self + "/queryables", Rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables", Type: TypeSchema, Title: "Queryables"},
		}}
	if len(c.Extent) == 4 {
		d.Extent = &Extent{Spatial: &SpatialExtent{BBox: [][]float64{c.Extent}, CRS: CRS84URI}}
	}
	if len(c.Temporal) == 2 {
		if d.Extent == nil {
			d.Extent = &Extent{}
		}
		d.Extent.Temporal = &TemporalExtent{Interval: [][]string{c.Temporal}, TRS: TRS}
	}
	return d
}

// CollectionsDoc lists collections.
type CollectionsDoc struct {
	Links       []Link          `json:"links"`
	Collections []CollectionDoc `json:"collections"`
	CRS         []string        `json:"crs"`
}

// NewCollectionsDoc lists cs.
func NewCollectionsDoc(cs []*Collection, base string) CollectionsDoc {
	d := CollectionsDoc{CRS: AdvertisedCRS, Collections: []CollectionDoc{}, Links: []Link{
		{Href: base + "/collections", Rel: "self", Type: TypeJSON, Title: "This document"},
		{Href: base + "/collections?f=html", Rel: "alternate", Type: TypeHTML, Title: "This document as HTML"},
	}}
	for _, c := range cs {
		d.Collections = append(d.Collections, NewCollectionDoc(c, base))
	}
	return d
}

// ItemsLinks are the links of an items page: self, alternate, collection
// and next (when next is not nil). query is the request's query string
// without f, cursor and key.
func ItemsLinks(c *Collection, base string, query url.Values, next *Cursor) []Link {
	items := base + "/collections/" + url.PathEscape(c.ID) + "/items"
	with := func(f string, cur *Cursor) string {
		q := url.Values{}
		for k, vs := range query {
			q[k] = vs
		}
		setFormat(q, f)
		if cur != nil {
			q.Set("cursor", cur.String())
		}
		return withQuery(items, q)
	}
	links := []Link{
		{Href: with("json", nil), Rel: "self", Type: TypeGeoJSON, Title: "This page"},
		{Href: with("html", nil), Rel: "alternate", Type: TypeHTML, Title: "This page as HTML"},
		{Href: base + "/collections/" + url.PathEscape(c.ID), Rel: "collection", Type: TypeJSON, Title: c.Title},
	}
	if next != nil {
		links = append(links, Link{Href: with("json", next), Rel: "next", Type: TypeGeoJSON, Title: "Next page"})
	}
	return links
}

// ItemLinks are the links of a single feature.
func ItemLinks(c *Collection, base string, fid int64, query url.Values) []Link {
	coll := base + "/collections/" + url.PathEscape(c.ID)
	self := coll + "/items/" + strconv.FormatInt(fid, 10)
	with := func(f string) string {
		q := url.Values{}
		for k, vs := range query {
			q[k] = vs
		}
		setFormat(q, f)
		return withQuery(self, q)
	}
	return []Link{
		{Href: with("json"), Rel: "self", Type: TypeGeoJSON, Title: "This feature"},
		{Href: with("html"), Rel: "alternate", Type: TypeHTML, Title: "This feature as HTML"},
		{Href: coll, Rel: "collection", Type: TypeJSON, Title: c.Title},
	}
}

// setFormat asks for format f in q; JSON, the default, is left unsaid so
// that a client may append a path to the link (GDAL adds /{id} to the
// items link).
func setFormat(q url.Values, f string) {
	if f == "json" {
		q.Del("f")
		return
	}
	q.Set("f", f)
}

// withQuery is u with the query q, if any.
func withQuery(u string, q url.Values) string {
	if len(q) == 0 {
		return u
	}
	return u + "?" + q.Encode()
}
