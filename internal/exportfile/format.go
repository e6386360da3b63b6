package exportfile

import "slices"

// Format is one output format of one data kind.
type Format struct {
	Kind Kind
	// MIME is the value clients send in an export's formats map
	// (api-shapes §7.3), e.g. "application/x-ogc-gpkg".
	MIME string
	// Aliases are other MIME values clients send for the same format
	// (the misspelt "applicaton/x-ogc-filegdb" of api-shapes §7.3).
	Aliases []string
	// Display is the choice's display_name, e.g. "GeoPackage".
	Display string
	// Driver is the GDAL driver short name, e.g. "GPKG".
	Driver string

	// rejects returns why an item of kind k and geometry type g cannot be
	// written in this format, "" when it can. Nil accepts everything.
	rejects func(k Kind, g string) string
	// estimate is the zipped size of an item from its statistics.
	estimate func(Stats) int64
	// out says how WriteVector writes a vector or table format.
	out vectorOut
}

// Stats are the figures an estimate starts from: Rows and RawBytes (the
// stored size of geometries and attributes) for vectors and tables;
// Pixels, Bands and BytesPerCell for grids and rasters.
type Stats struct {
	Rows, RawBytes              int64
	Pixels, Bands, BytesPerCell int64
}

// Accepts reports whether an item of kind k with geometry type g ("" for
// tables and rasters) can be written in f; when it cannot, reason is a
// short sentence for a validation body.
func (f Format) Accepts(k Kind, g string) (reason string, ok bool) {
	if f.rejects == nil {
		return "", true
	}
	reason = f.rejects(k, g)
	return reason, reason == ""
}

// EstimateZipped is the zipped size in bytes of an item, from ratios
// measured per format, never by writing.
func (f Format) EstimateZipped(s Stats) int64 {
	if f.estimate == nil {
		return s.RawBytes + s.Pixels*max(s.Bands, 1)*max(s.BytesPerCell, 1)
	}
	return f.estimate(s)
}

// catalogue holds every format, per kind in display order. The vector and
// table lists live in formats_vector.go, the raster and grid lists in
// formats_raster.go.
func catalogue(k Kind) []Format {
	switch k {
	case KindVector:
		return vectorFormats
	case KindTable:
		return tableFormats
	case KindRaster:
		return rasterFormats
	case KindGrid:
		return gridFormats
	}
	return nil
}

// Kinds are the data kinds in the order OPTIONS /exports/ lists them.
var Kinds = []Kind{KindVector, KindTable, KindRaster, KindGrid}

// Formats lists the choices of kind k in display order.
func Formats(k Kind) []Format { return slices.Clone(catalogue(k)) }

// FormatByMIME finds a format of kind k by its MIME value or an alias.
func FormatByMIME(k Kind, mime string) (Format, bool) {
	for _, f := range catalogue(k) {
		if f.MIME == mime || slices.Contains(f.Aliases, mime) {
			return f, true
		}
	}
	return Format{}, false
}
