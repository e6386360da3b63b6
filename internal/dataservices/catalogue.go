// Package dataservices is the catalogue of data services that attach to
// datasets: which keys exist, which owners each attaches to, which can be
// switched on and off, and which owner permission each needs by default.
// It also fills external service templates for a dataset. It holds no
// state: the database keeps each owner's settings.
package dataservices

import "slices"

// Owner is the type of dataset a service attaches to.
type Owner string

// The owner types. Tables are layers without geometry: they take the
// layer services that do not need geometry.
const (
	Layer       Owner = "layer"
	Table       Owner = "table"
	Set         Owner = "set"
	CatalogItem Owner = "catalog_item"
)

// Class is the owner permission a service needs by default (the spec's
// service-permission rule 1).
type Class int

const (
	// ViewClass services need view on the owner.
	ViewClass Class = iota
	// DownloadClass services deliver the data itself and need download.
	DownloadClass
)

// Service describes one service key.
type Service struct {
	Key string
	// Owners lists the owner types it attaches to.
	Owners []Owner
	// Configurable services can be enabled, disabled and given
	// permissions.
	Configurable bool
	// Class is the owner permission it needs by default.
	Class Class
	// Geometry services do not attach to tables.
	Geometry bool
	// SiteSetting services are available only while the site enables
	// them (esri-map).
	SiteSetting bool
	// UI marks the internal UI-visibility keys, which deliver no data;
	// Follows is the data service whose state they mirror.
	UI      bool
	Follows string
	// Within is the service this one is part of (wfs for
	// wfs-changesets): it serves only where that one would too, by that
	// one's switch and permissions as well as its own.
	Within string
}

var (
	lyr    = []Owner{Layer}
	lyrSet = []Owner{Layer, Set}
	lsc    = []Owner{Layer, Set, CatalogItem}
)

// all is the specification's service table, in its order.
var all = []Service{
	{Key: "kart", Owners: lyr, Configurable: true, Class: DownloadClass},
	{Key: "csw", Owners: lsc},
	{Key: "spatial-query-grid", Owners: lyr, Configurable: true, Geometry: true},
	{Key: "spatial-query-tiles", Owners: lyr, Configurable: true, Geometry: true},
	{Key: "spatial-query-vector", Owners: lyr, Configurable: true, Geometry: true},
	{Key: "spatial-query-set", Owners: []Owner{Set}},
	{Key: "data-table", Owners: lyr, Configurable: true},
	{Key: "wfs", Owners: lyr, Configurable: true, Class: DownloadClass},
	{Key: "wfs-changesets", Owners: lyr, Configurable: true, Class: DownloadClass, Within: "wfs"},
	{Key: "tiles", Owners: lyrSet, Configurable: true, Geometry: true},
	{Key: "esri-map", Owners: lsc, Geometry: true, SiteSetting: true},
	{Key: "wmts", Owners: lsc, Geometry: true},
	{Key: "vector-tile-pmtiles", Owners: lyr, Geometry: true},
	{Key: "vector-tile-mvt", Owners: lyr, Geometry: true},
	{Key: "vector-tile-mbtiles", Owners: lyr, Geometry: true},
	{Key: "vector-tile-arcgis", Owners: lyr, Geometry: true},
	{Key: "vector-tile-json", Owners: lsc, Geometry: true},
	{Key: "raster-pmtile", Owners: lsc, Geometry: true},
	{Key: "raster-tile-json", Owners: lsc, Geometry: true},
	{Key: "copc", Owners: lyr, Geometry: true},
	{Key: "esri-rest-api", Owners: lyr},
	{Key: "3d-tiles", Owners: lyr, Geometry: true},
	{Key: "ifc", Owners: lsc},
	{Key: "kart-diff", Owners: lsc, Class: DownloadClass},
	{Key: "export", Owners: lyr, Configurable: true, Class: DownloadClass},
	{Key: "small-data", Owners: []Owner{CatalogItem}},
	{Key: "kart-ui", Owners: lyr, UI: true, Follows: "kart"},
	{Key: "spatial-query-ui", Owners: lyr, UI: true, Follows: "spatial-query-vector", Geometry: true},
	{Key: "data-table-ui", Owners: lyr, UI: true, Follows: "data-table"},
	{Key: "vector-tile-pmtiles-ui", Owners: lyr, UI: true, Follows: "vector-tile-pmtiles", Geometry: true},
	{Key: "copc-ui", Owners: lyr, UI: true, Follows: "copc", Geometry: true},
}

// ExternalKey is the key of services made from external templates.
const ExternalKey = "external"

// External describes services made from external templates: they attach
// to layers, tables, sets and catalog items, are configurable and need
// view on their owner.
var External = Service{Key: ExternalKey, Owners: []Owner{Layer, Table, Set, CatalogItem}, Configurable: true}

// Lookup returns the service with key.
func Lookup(key string) (Service, bool) {
	for _, s := range all {
		if s.Key == key {
			return s, true
		}
	}
	return Service{}, false
}

// For lists the built-in services an owner type has, in the
// specification's order.
func For(o Owner) []Service {
	var out []Service
	for _, s := range all {
		if s.AttachesTo(o) {
			out = append(out, s)
		}
	}
	return out
}

// AttachesTo reports whether s attaches to owners of type o.
func (s Service) AttachesTo(o Owner) bool {
	if o == Table {
		return slices.Contains(s.Owners, Layer) && !s.Geometry
	}
	return slices.Contains(s.Owners, o)
}
