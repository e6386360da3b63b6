package schematype

// Band is one band of a grid or raster layer version, in band order.
type Band struct {
	// Index is the 1-based band number.
	Index int `json:"index"`
	// Name is the band's description, or its colour interpretation
	// (red, green, blue, alpha, gray, palette) when it has none.
	Name string `json:"name"`
	// DataType is GDAL's pixel type: Byte, UInt16, Int16, UInt32, Int32,
	// Float32, Float64 and so on.
	DataType string `json:"data_type"`
	// NoData is the value that marks cells without data, if any.
	NoData *float64 `json:"nodata,omitempty"`
	// ColorInterp is GDAL's colour interpretation, lower case.
	ColorInterp string `json:"color_interp"`
}
