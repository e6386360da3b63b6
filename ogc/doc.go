// Package ogc is the front door of the standard data services over
// published layers, tables and sets, one file per service: OGC API -
// Features (features.go), WFS 2.0 and 1.1 (wfs.go), vector tiles and
// TileJSON (tiles.go), raster tiles and their TileJSON (rastertiles.go),
// WMTS (wmts.go), the catalogue as OGC API - Records (records.go), and
// the path form of the API key (pathkey.go). The rules live in the
// services' own packages under internal/ (internal/ogcfeatures,
// internal/ogcrecords, internal/wfsserver, internal/cql2,
// internal/vectortiles, internal/rastertiles); this package only speaks
// HTTP.
package ogc
