package ingest

// Data types of a Datasource.
const (
	TypeVector   = "vector"
	TypeTable    = "table"
	TypeGrid     = "grid"
	TypeDocument = "document"
)

// Datasource is one usable piece of data found by Scan: a vector layer, a
// table, a grid (raster) or a document. Its fields follow the datasource
// representation of the API (api-shapes §6.3).
type Datasource struct {
	// Path is the main file, relative to the scanned directory, slash
	// separated (for a FileGDB, the .gdb directory).
	Path string
	// Layer names the layer inside the file (GeoPackage, FileGDB, KML have
	// several); GDAL's layer name, also set for single-layer files; "" for
	// grids and documents.
	Layer string
	// Files lists every file belonging to the datasource (main file and
	// sidecars such as .shx .dbf .prj .cpg), relative and sorted.
	Files []string
	// MetadataPath is an .xml file with the same base name, "" if none.
	MetadataPath string

	// Fingerprint changes whenever the content does, for datasources a
	// remote service kind discovers (their Files are empty); "" for files.
	Fingerprint string

	Title    string
	DataType string // TypeVector, TypeTable, TypeGrid, TypeDocument
	Format   string // MIME type, e.g. application/x-zipped-shp
	Driver   string // GDAL driver used to read it ("" for documents)

	GeometryType  string // point, multipoint, linestring, ...; "" for tables
	GeometryField string // name of the geometry column, "" for tables
	// CRS is "EPSG:n" when identifiable, else the WKT, else "".
	CRS string
	// CRSAssumed is set when the file declares no CRS and EPSG:4326 was
	// assumed because every coordinate lies within lon/lat range (CSV).
	CRSAssumed bool
	Fields     []Field
	// PrimaryKey is the key the source declares for the datasource's
	// features, fields of Fields (a PostgreSQL table's primary key, a
	// GeoPackage layer's primary-key column); nil when it declares none.
	PrimaryKey []string
	// FeatureCount is the number of features (rows for tables) actually
	// read; EmptyGeometryCount those without a geometry or with an empty
	// one.
	FeatureCount       int64
	EmptyGeometryCount int64
	// Extent is the bounding box in EPSG:4326, [minlon, minlat, maxlon,
	// maxlat]; nil when unknown (no CRS, no geometries).
	Extent  *[4]float64
	NumDims int // 2 or 3; 0 for tables and documents

	// Grids only.
	NumBands   int
	Width      int
	Height     int
	Resolution float64  // pixel width in CRS units (absolute)
	BandTypes  []string // GDAL data type per band, e.g. "Byte", "Float32"
}

// Field is one column of a vector layer or table. Type is one of geometry,
// integer, double, string, date, datetime, boolean.
type Field struct {
	Name string
	Type string
}

// Problem is a file that could not be turned into a datasource.
type Problem struct {
	Path    string // relative, slash separated
	Message string
}
