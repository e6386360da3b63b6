package exportfile

import (
	"context"

	"github.com/geopub/geopub/internal/featurerows"
)

// Kind is a data kind of the export API (api-shapes §7.3).
type Kind string

// Data kinds.
const (
	KindVector Kind = "vector"
	KindTable  Kind = "table"
	KindRaster Kind = "raster"
	KindGrid   Kind = "grid"
)

// Field is one attribute column of a vector item; Type is integer, double,
// string, date, datetime, time or boolean (as layer versions store them).
type Field struct {
	Name string
	Type string
}

// VectorItem is one layer or table to write.
type VectorItem struct {
	// Name is the base name of its files and layer ("nz-roads"): a slug,
	// unique within the export.
	Name string
	// Title is the dataset's title (used where a format has a layer title).
	Title string
	// Fields are the attribute columns, in order.
	Fields []Field
	// GeometryType is the layer version's geometry type ("point",
	// "multipolygon", ...; "" for a table).
	GeometryType string
	// HasZ says the geometries have Z (the layer is created 3D).
	HasZ bool
	// Count is the number of rows Rows will stream (for progress and
	// splitting); it may be an upper bound.
	Count int64
	// Rows streams the item's rows in order, stopping at fn's first error.
	Rows func(ctx context.Context, fn func(*featurerows.RawRow) error) error
	// MetadataXML, when not empty, is written beside the data as
	// "<Name>.xml"; LicenseText, when not empty, as "<Name>.license.txt".
	MetadataXML []byte
	LicenseText string
}

// RasterItem is one grid or raster layer to write.
type RasterItem struct {
	Name  string
	Title string
	Kind  Kind // KindGrid or KindRaster
	// Path is a local path GDAL can open (the version's COG).
	Path        string
	MetadataXML []byte
	LicenseText string
}

// Options are shared by every item of one export.
type Options struct {
	// CRS is the target, "EPSG:<code>"; "" keeps EPSG:4326 for vectors and
	// the raster's own CRS for rasters.
	CRS string
	// Clip is the crop area, ISO WKB (Multi)Polygon in EPSG:4326; nil for
	// no crop.
	Clip []byte
	// Progress, when set, is called with the share of the item written so
	// far (0..1), at most a few times a second.
	Progress func(share float64)
}

// Result says what an item wrote.
type Result struct {
	// Files are the paths written, relative to the work folder.
	Files []string
	// Features is the number of features written (after clipping); 0 for
	// rasters.
	Features int64
}

// The writers (vector.go, raster.go) and the packager (zip.go) have these
// signatures:
//
//	func WriteVector(ctx context.Context, dir string, item VectorItem, f Format, o Options) (Result, error)
//	func WriteRaster(ctx context.Context, dir string, item RasterItem, f Format, o Options) (Result, error)
//	func Package(ctx context.Context, dir string, w io.Writer) (int64, error)
//
// WriteVector and WriteRaster write into dir (an existing folder of the
// caller's) and honour ctx: a cancelled export stops within a second and
// returns ctx.Err(); the caller removes dir. Package streams a zip of
// every file under dir to w, never holding a file in memory, and returns
// the bytes written.
