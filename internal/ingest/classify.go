package ingest

import (
	"path"
	"strings"
)

// kind says how a file extension is read.
type kind struct {
	dataType string   // TypeVector (may turn out a table), TypeTable, TypeGrid
	format   string   // MIME type
	drivers  []string // allowed GDAL drivers
	sidecars []string // lower-case extensions of files belonging to it
}

var shpSidecars = []string{".shx", ".dbf", ".prj", ".cpg", ".sbn", ".sbx", ".qix", ".qpj", ".fix", ".atx", ".ain", ".aih"}
var worldFiles = []string{".aux.xml", ".ovr", ".wld", ".prj"}

// kinds maps lower-case extensions of readable files.
var kinds = map[string]kind{
	".shp":      {TypeVector, "application/x-zipped-shp", []string{"ESRI Shapefile"}, shpSidecars},
	".dbf":      {TypeTable, "application/dbf", []string{"ESRI Shapefile"}, []string{".cpg"}},
	".gpkg":     {TypeVector, "application/geopackage+sqlite3", []string{"GPKG"}, nil},
	".geojson":  {TypeVector, "application/geo+json", []string{"GeoJSON"}, nil},
	".json":     {TypeVector, "application/geo+json", []string{"GeoJSON"}, nil},
	".geojsons": {TypeVector, "application/geo+json-seq", []string{"GeoJSONSeq"}, nil},
	".csv":      {TypeVector, "text/csv", []string{"CSV"}, []string{".csvt", ".prj"}},
	".kml":      {TypeVector, "application/vnd.google-earth.kml+xml", []string{"KML", "LIBKML"}, nil},
	".gml":      {TypeVector, "application/gml+xml", []string{"GML"}, []string{".xsd", ".gfs"}},
	".fgb":      {TypeVector, "application/flatgeobuf", []string{"FlatGeobuf"}, nil},
	".tab":      {TypeVector, "application/x-mapinfo", []string{"MapInfo File"}, []string{".dat", ".map", ".id", ".ind"}},
	".gdb":      {TypeVector, "application/x-filegdb", []string{"OpenFileGDB"}, nil},
	".tif":      {TypeGrid, "image/tiff;subtype=geotiff", []string{"GTiff"}, append([]string{".tfw", ".tifw"}, worldFiles...)},
	".tiff":     {TypeGrid, "image/tiff;subtype=geotiff", []string{"GTiff"}, append([]string{".tfw", ".tiffw"}, worldFiles...)},
	".png":      {TypeGrid, "image/png", []string{"PNG"}, append([]string{".pgw", ".pngw"}, worldFiles...)},
	".jpg":      {TypeGrid, "image/jpeg", []string{"JPEG"}, append([]string{".jgw", ".jpgw"}, worldFiles...)},
	".jpeg":     {TypeGrid, "image/jpeg", []string{"JPEG"}, append([]string{".jgw", ".jpegw"}, worldFiles...)},
	".asc":      {TypeGrid, "application/x-ascii-grid", []string{"AAIGrid"}, worldFiles},
	".img":      {TypeGrid, "application/x-erdas-hfa", []string{"HFA"}, worldFiles},
	".jp2":      {TypeGrid, "image/jp2", []string{"JP2OpenJPEG"}, append([]string{".j2w"}, worldFiles...)},
}

// documentTypes names common non-spatial files; anything else is
// application/octet-stream. A fixed table keeps results independent of the
// machine's mime database.
var documentTypes = map[string]string{
	".pdf":  "application/pdf",
	".txt":  "text/plain",
	".md":   "text/markdown",
	".html": "text/html",
	".htm":  "text/html",
	".xml":  "application/xml",
	".json": "application/json",
	".doc":  "application/msword",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xls":  "application/vnd.ms-excel",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".ppt":  "application/vnd.ms-powerpoint",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".odt":  "application/vnd.oasis.opendocument.text",
	".ods":  "application/vnd.oasis.opendocument.spreadsheet",
	".rtf":  "application/rtf",
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".gif":  "image/gif",
	".tif":  "image/tiff",
	".tiff": "image/tiff",
	".svg":  "image/svg+xml",
	".zip":  "application/zip",
}

func documentType(rel string) string {
	if t, ok := documentTypes[lowerExt(rel)]; ok {
		return t
	}
	return "application/octet-stream"
}

// lowerExt returns the lower-case extension, with ".aux.xml" and ".shp.xml"
// style double extensions kept whole.
func lowerExt(rel string) string {
	l := strings.ToLower(path.Base(rel))
	if strings.HasSuffix(l, ".aux.xml") {
		return ".aux.xml"
	}
	return path.Ext(l)
}

// stem is the path without its last extension, lower-cased, used to match
// sidecars (case-insensitively, as on Windows where shapefiles come from).
func stem(rel string) string {
	l := strings.ToLower(rel)
	if strings.HasSuffix(l, ".aux.xml") {
		return strings.TrimSuffix(l, ".aux.xml")
	}
	return strings.TrimSuffix(l, path.Ext(l))
}

// ignored reports files that are never data: OS droppings and hidden files.
func ignored(name string) bool {
	l := strings.ToLower(name)
	return strings.HasPrefix(l, ".") || l == "thumbs.db" || l == "desktop.ini"
}

func title(rel string) string {
	b := path.Base(rel)
	return strings.TrimSuffix(b, path.Ext(b))
}
