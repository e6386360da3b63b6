package exportfile

// Format is one output format of one data kind.
type Format struct {
	Kind Kind
	// MIME is the value clients send in an export's formats map
	// (api-shapes §7.3), e.g. "application/x-ogc-gpkg".
	MIME string
	// Display is the choice's display_name, e.g. "GeoPackage".
	Display string
	// Driver is the GDAL driver short name, e.g. "GPKG".
	Driver string
}

// Accepts reports whether an item of kind k with the given geometry type
// ("" for tables and rasters) can be written in f; when it cannot, reason
// is a short sentence for the validation body ("DXF cannot hold a table
// without geometry").
//
//	func (f Format) Accepts(k Kind, geometryType string) (reason string, ok bool)
//
// EstimateZipped is the zipped size in bytes of an item with rows rows
// whose stored attributes and geometries total rawBytes (vectors), or of
// pixels cells of bands bands of bytesPerCell (rasters), from ratios
// measured per format, not by writing.
//
//	func (f Format) EstimateZipped(s Stats) int64
//
// Stats are the figures an estimate starts from.
type Stats struct {
	Rows, RawBytes              int64
	Pixels, Bands, BytesPerCell int64
}
