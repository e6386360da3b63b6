// Package usage counts what Geopub serves: per dataset (layers and
// tables, sets, documents, catalog items), per data service and per API
// token, the requests, bytes, features and tiles served, and the exports
// and downloads made, by UTC day.
//
// Counting costs no database write and no allocation per request in the
// steady state: the doors mark what a request served in a Mark the
// middleware put in its context (Served), the middleware adds the mark to
// in-memory counters spread over shards picked at random (so concurrent
// requests, even of one dataset, rarely meet on a lock), and the counters
// are written every few seconds and at shutdown by additive upserts into
// the usage_days table (one row per day, dataset, service and token).
// Several processes over one database add up; a crash loses at most one
// interval.
//
// Reading (Figures) returns the rows of one dataset or one token between
// two days; who may read them (the dataset's editors and site
// administrators, a token's owner) is the caller's rule to apply.
package usage

import (
	"time"
)

// Kind is a dataset kind with figures. Layers and tables share Layer.
type Kind uint8

// The kinds with figures.
const (
	NoKind Kind = iota
	Layer
	Set
	Document
	CatalogItem
)

var kindNames = [...]string{NoKind: "", Layer: "layer", Set: "set", Document: "document", CatalogItem: "catalog_item"}

// String is the kind as the usage_days table names it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return ""
}

// KindOf returns the kind named name ("layer", "table", "set",
// "document", "catalog_item"), NoKind for any other.
func KindOf(name string) Kind {
	switch name {
	case "layer", "table":
		return Layer
	case "set":
		return Set
	case "document":
		return Document
	case "catalog_item":
		return CatalogItem
	}
	return NoKind
}

// Service is a data service through which a dataset is served. The names
// are the specification's service keys where one exists.
type Service uint8

// The services counted.
const (
	NoService Service = iota
	// WFS is WFS 2.0/1.1 and OGC API - Features (one switch, "wfs").
	WFS
	// Tiles is vector and raster tiles and their TileJSON.
	Tiles
	// WMTS is the WMTS tiles of a layer or set.
	WMTS
	// QueryVector, QueryGrid and QuerySet are the point queries.
	QueryVector
	QueryGrid
	QuerySet
	// DataTable is the rows of a layer or table as JSON or CSV.
	DataTable
	// Export is exports: made (Exports) and their files downloaded.
	Export
	// Download is a document's file.
	Download
	// SmallData is the files attached to catalog items.
	SmallData
	// ArcGIS is the GeoServices REST FeatureServer; ArcGISMap its
	// MapServer and VectorTileServer.
	ArcGIS
	ArcGISMap
	// TileArchive is the PMTiles and MBTiles archives.
	TileArchive
	numServices
)

var serviceNames = [numServices]string{
	WFS: "wfs", Tiles: "tiles", WMTS: "wmts",
	QueryVector: "spatial-query-vector", QueryGrid: "spatial-query-grid", QuerySet: "spatial-query-set",
	DataTable: "data-table", Export: "export", Download: "download", SmallData: "small-data",
	ArcGIS: "esri-rest-api", ArcGISMap: "esri-map", TileArchive: "tile-archive",
}

// String is the service's key.
func (s Service) String() string {
	if s < numServices {
		return serviceNames[s]
	}
	return ""
}

// Services lists every service's key, in order.
func Services() []string {
	out := make([]string, 0, numServices-1)
	for s := Service(1); s < numServices; s++ {
		out = append(out, s.String())
	}
	return out
}

// Amounts are what was served or made. A download counts only when its
// answer is a GET's 200: a HEAD, a range of the file (206) or a 304 is a
// request with its bytes, not a download (Middleware sees to it).
type Amounts struct {
	Requests, Bytes, Features, Tiles, Exports, Downloads int64
}

func (a *Amounts) add(b Amounts) {
	a.Requests += b.Requests
	a.Bytes += b.Bytes
	a.Features += b.Features
	a.Tiles += b.Tiles
	a.Exports += b.Exports
	a.Downloads += b.Downloads
}

func (a Amounts) zero() bool { return a == Amounts{} }

// day is a UTC day as days since 1970-01-01.
type day int32

func dayOf(t time.Time) day { return day(t.Unix() / 86400) }

// String is the day as YYYY-MM-DD.
func (d day) String() string { return time.Unix(int64(d)*86400, 0).UTC().Format(time.DateOnly) }
