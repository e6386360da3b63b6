package ingest

import (
	"strings"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// ogrField is one attribute column of a layer: the OGR field at index
// idx, or (fid set) the layer's FID column kept as an attribute.
type ogrField struct {
	name string
	typ  string // Field.Type vocabulary
	idx  int
	fid  bool
}

// layerSchema returns the attribute fields in order and the name of the
// first geometry column ("" when the driver does not name it).
func layerSchema(l godal.Layer) (fields []ogrField, geomName string) {
	for i, d := range gdal.LayerFields(l) {
		fields = append(fields, ogrField{name: d.Name, typ: fieldType(d), idx: i})
	}
	return fields, gdal.LayerGeometryColumn(l)
}

// gdalDefaultFID is the name GDAL gives a GeoPackage's primary-key column
// unless told otherwise.
const gdalDefaultFID = "fid"

// withDeclaredKey adds a GeoPackage layer's primary-key column to its
// fields, first, as an integer attribute holding each feature's FID, and
// returns its name as the layer's declared key: GDAL reads that column as
// the FID only, so without this the key would be lost on import. Only a
// column named otherwise than GDAL's default (fid) counts: GDAL writes
// that one into every GeoPackage it creates, numbering the rows 1..n
// whatever the source, so it is a row number (as a shapefile's FID is),
// and keeping it would add a field to every GeoPackage layer. Other
// drivers declare no key here.
func withDeclaredKey(l godal.Layer, driver string, fields []ogrField) ([]ogrField, string) {
	if driver != "GPKG" {
		return fields, ""
	}
	name := gdal.LayerFIDColumn(l)
	if name == "" || strings.EqualFold(name, gdalDefaultFID) {
		return fields, ""
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, name) {
			return fields, ""
		}
	}
	return append([]ogrField{{name: name, typ: "integer", fid: true}}, fields...), name
}

// fieldType is an OGR field's type in the Field.Type vocabulary.
func fieldType(d gdal.FieldDefn) string {
	switch d.Type {
	case gdal.FieldInteger:
		if d.Boolean {
			return "boolean"
		}
		return "integer"
	case gdal.FieldInteger64:
		return "integer"
	case gdal.FieldReal:
		return "double"
	case gdal.FieldDate:
		return "date"
	case gdal.FieldDateTime:
		return "datetime"
	case gdal.FieldTime:
		return "time"
	default: // string, binary and list types
		return "string"
	}
}
