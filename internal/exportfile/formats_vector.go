package exportfile

import (
	"cmp"
	"strings"
)

// MIME values of the vector and table formats (api-shapes §7.3).
const (
	MIMEGeoPackage  = "application/x-ogc-gpkg"
	MIMEShapefile   = "application/x-zipped-shp"
	MIMEGeoJSON     = "application/geo+json"
	MIMEFlatGeobuf  = "application/flatgeobuf"
	MIMECSV         = "text/csv"
	MIMECSVXY       = "text/csv;geometry=xy"
	MIMEKML         = "application/vnd.google-earth.kml+xml"
	MIMEKMZ         = "application/vnd.google-earth.kmz"
	MIMEFileGDB     = "application/x-ogc-filegdb"
	MIMEMapInfo     = "application/x-ogc-mapinfo_file"
	MIMEDXF         = "image/vnd.dxf"
	MIMEGML         = "application/gml+xml"
	MIMEGPX         = "application/gpx+xml"
	MIMEXLSX        = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	crsFixedLonLat  = "EPSG:4326"
	misspeltFileGDB = "applicaton/x-ogc-filegdb"
)

// DWG (image/vnd.dwg, offered by some peers) is not in these lists: GDAL's
// CAD driver only reads DWG and no other GDAL driver writes it.

// vectorOut is how WriteVector writes a format with GDAL.
type vectorOut struct {
	// ext is the file (or folder, for ".gdb") extension of the dataset.
	ext string
	// dsco and lco are GDAL dataset and layer creation options.
	dsco, lco []string
	// fixedCRS is the only CRS the format holds ("" = any).
	fixedCRS string
	// layerName, when set, is the layer name the driver needs (GPX).
	layerName func(geometryType string) string
	// maxLayerName is the longest layer name the format takes (0 = any).
	maxLayerName int
	// splitShapefile splits the output at ShapefileSplitBytes.
	splitShapefile bool
	// dateTimeAsText writes date-time fields as ISO 8601 text (the format
	// has dates only); dateAsText writes dates so too (it has neither).
	dateTimeAsText, dateAsText bool
	// timeAsText writes times of day as text, "12:34:56": the format
	// has no time type (or, as FlatGeobuf and File Geodatabase do in
	// GDAL 3.6, makes a date-time of it and loses the value).
	timeAsText bool
	// int64AsReal writes integers as reals (the format's integers are
	// 32-bit; reals hold integers exactly up to 2^53).
	int64AsReal bool
	// zipAs, when set, zips the written file into one with this
	// extension (a KMZ is a zip of the KML).
	zipAs string
	// indexAtEnd builds the spatial index by SQL once every row is
	// written (GeoPackage), so a cancelled export does not build it.
	indexAtEnd bool
	// noAttributes: the driver has a fixed schema and takes no fields
	// (DXF); attributes are left out.
	noAttributes bool
}

// FixedCRS is the CRS a format always holds, whatever the export's crs
// ("EPSG:4326" for KML, KMZ and GPX, whose specifications define
// longitude/latitude on WGS 84); "" when the export's crs applies.
func (f Format) FixedCRS() string { return f.out.fixedCRS }

// Extension is the file extension of a vector format's dataset (".gpkg",
// ".shp", ".gdb" for a File Geodatabase folder); "" for other formats.
func (f Format) Extension() string { return cmp.Or(f.out.zipAs, f.out.ext) }

var (
	gpkg = Format{MIME: MIMEGeoPackage, Display: "GeoPackage", Driver: "GPKG",
		out:      vectorOut{ext: ".gpkg", lco: []string{"SPATIAL_INDEX=NO"}, indexAtEnd: true},
		estimate: sized(0.92, 0.36, 0.15)}
	shapefile = Format{MIME: MIMEShapefile, Display: "Shapefile", Driver: "ESRI Shapefile",
		rejects:  rejectMixed("Shapefile"),
		out:      vectorOut{ext: ".shp", lco: []string{"ENCODING=UTF-8"}, splitShapefile: true, dateTimeAsText: true, timeAsText: true},
		estimate: sized(0.90, 0.18, 0.17)}
	geojson = Format{MIME: MIMEGeoJSON, Aliases: []string{"application/vnd.geo+json"}, Display: "GeoJSON", Driver: "GeoJSON",
		out:      vectorOut{ext: ".geojson"},
		estimate: sized(1.37, 0.12, 0.14)}
	flatgeobuf = Format{MIME: MIMEFlatGeobuf, Display: "FlatGeobuf", Driver: "FlatGeobuf",
		out:      vectorOut{ext: ".fgb", lco: []string{"SPATIAL_INDEX=YES"}, timeAsText: true},
		estimate: sized(0.91, 0.32, 0.32)}
	csvWKT = Format{MIME: MIMECSV, Display: "CSV", Driver: "CSV",
		out:      vectorOut{ext: ".csv", lco: []string{"GEOMETRY=AS_WKT", "CREATE_CSVT=YES"}},
		estimate: sized(0.92, 0.11, 0.11)}
	csvXY = Format{MIME: MIMECSVXY, Display: "CSV (X/Y columns)", Driver: "CSV",
		rejects:  rejectUnlessPoints("CSV with X/Y columns"),
		out:      vectorOut{ext: ".csv", lco: []string{"GEOMETRY=AS_XY", "CREATE_CSVT=YES"}},
		estimate: sized(0.92, 0.11, 0.11)}
	// KML uses GDAL's KML driver, which streams; LIBKML builds the whole
	// document in memory and took minutes for 20,000 points as KMZ. A KMZ
	// is the KML zipped as doc.kml (kmz.go).
	kml = Format{MIME: MIMEKML, Display: "KML", Driver: "KML",
		out:      vectorOut{ext: ".kml", fixedCRS: crsFixedLonLat, dateAsText: true, timeAsText: true},
		estimate: sized(0.58, 0.24, 0.24)}
	kmz = Format{MIME: MIMEKMZ, Display: "KMZ", Driver: "KML",
		out:      vectorOut{ext: ".kml", zipAs: ".kmz", fixedCRS: crsFixedLonLat, dateAsText: true, timeAsText: true},
		estimate: sized(0.58, 0.24, 0.24)}
	fileGDB = Format{MIME: MIMEFileGDB, Aliases: []string{misspeltFileGDB}, Display: "File Geodatabase", Driver: "OpenFileGDB",
		rejects:  rejectMixed("File Geodatabase"),
		out:      vectorOut{ext: ".gdb", timeAsText: true},
		estimate: sized(0.55, 0.18, 0.14)}
	mapinfo = Format{MIME: MIMEMapInfo, Display: "MapInfo TAB", Driver: "MapInfo File",
		out:      vectorOut{ext: ".tab", int64AsReal: true},
		estimate: sized(0.54, 0.21, 0.18)}
	dxf = Format{MIME: MIMEDXF, Display: "DXF", Driver: "DXF",
		rejects:  rejectTables("DXF"),
		out:      vectorOut{ext: ".dxf", noAttributes: true},
		estimate: sized(0.96, 0.01, 0.01)}
	gml = Format{MIME: MIMEGML, Display: "GML", Driver: "GML",
		out:      vectorOut{ext: ".gml", dsco: []string{"FORMAT=GML3"}},
		estimate: sized(0.96, 0.27, 0.27)}
	gpx = Format{MIME: MIMEGPX, Display: "GPX", Driver: "GPX",
		rejects: rejectGPX,
		out: vectorOut{ext: ".gpx", fixedCRS: crsFixedLonLat, dsco: []string{"GPX_USE_EXTENSIONS=YES"},
			lco: []string{"FORCE_GPX_TRACK=YES"}, layerName: gpxLayer},
		estimate: sized(0.60, 0.24, 0.24)}
	xlsx = Format{MIME: MIMEXLSX, Display: "Excel (XLSX)", Driver: "XLSX",
		out:      vectorOut{ext: ".xlsx", maxLayerName: 31},
		estimate: sized(0.33, 0.33, 0.33)}
)

// vectorFormats and tableFormats are the formats of layers with geometry
// and of tables, in display order.
var (
	vectorFormats = kinds(KindVector, gpkg, shapefile, geojson, flatgeobuf, csvWKT, csvXY, kml, kmz,
		fileGDB, mapinfo, dxf, gml, gpx)
	tableFormats = kinds(KindTable, csvWKT, fileGDB, gpkg, shapefile, mapinfo, xlsx, geojson)
)

// kinds copies fs with their Kind set to k.
func kinds(k Kind, fs ...Format) []Format {
	out := make([]Format, len(fs))
	for i, f := range fs {
		f.Kind = k
		out[i] = f
	}
	return out
}

// sized estimates a zipped size from the bytes stored: geometry bytes
// times g plus attribute bytes times a (the ratios differ by far: WKB
// coordinates barely compress, attribute JSON shrinks to a tenth or so,
// and a format's per-feature overhead rides on the attributes), or, for
// a table (no geometry bytes), the stored bytes times t. The ratios were
// measured by TestEstimatesWithinHalf (estimate_test.go; figures in
// bench/export/RESULTS.md).
func sized(g, a, t float64) func(Stats) int64 {
	return func(s Stats) int64 {
		if s.GeomBytes <= 0 {
			return int64(t*float64(s.RawBytes)) + 1024
		}
		attrs := max(s.RawBytes-s.GeomBytes, 0)
		return int64(g*float64(s.GeomBytes)+a*float64(attrs)) + 1024
	}
}

func rejectTables(name string) func(Kind, string) string {
	return func(k Kind, _ string) string {
		if k == KindTable {
			return name + " cannot hold a table: it has no geometry."
		}
		return ""
	}
}

// rejectMixed refuses layers mixing geometry types (one geometry type per
// layer in these formats).
func rejectMixed(name string) func(Kind, string) string {
	return func(k Kind, g string) string {
		if k == KindVector && (g == "geometrycollection" || g == "geometry") {
			return name + " holds one geometry type per layer; this layer mixes types."
		}
		return ""
	}
}

func rejectUnlessPoints(name string) func(Kind, string) string {
	return func(k Kind, g string) string {
		if k == KindVector && g != "point" {
			return name + " holds only point layers; this layer's geometry is " + geomWord(g) + "."
		}
		return ""
	}
}

func rejectGPX(k Kind, g string) string {
	switch {
	case k == KindTable:
		return "GPX cannot hold a table: it has no geometry."
	case g == "point", g == "linestring", g == "multilinestring":
		return ""
	}
	return "GPX holds only points and lines; this layer's geometry is " + geomWord(g) + "."
}

// gpxLayer is the layer the GPX driver writes a geometry type to:
// waypoints for points, tracks for lines.
func gpxLayer(g string) string {
	if g == "point" {
		return "waypoints"
	}
	return "tracks"
}

func geomWord(g string) string {
	switch {
	case g == "":
		return "unknown"
	case strings.HasPrefix(g, "multi"):
		return g[:5] + "-" + g[5:]
	}
	return g
}
