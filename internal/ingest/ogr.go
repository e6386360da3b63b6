package ingest

import (
	"math"
	"strings"
	"time"

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

// recordValue is v, a field of type typ (ogrField.typ) read by
// packFields, as a Go value of the matching type: nil when unset or null.
func recordValue(v gdal.RecordValue, typ string) any {
	switch v.Kind {
	case gdal.ValueNull:
		return nil
	case gdal.ValueInt:
		if typ == "boolean" {
			return v.Int != 0
		}
		return v.Int
	case gdal.ValueReal:
		return v.Float
	case gdal.ValueText:
		return string(v.Text)
	}
	if typ == "time" {
		// A time of day as text, "12:34:56" (any zone left aside), so
		// that a datasource scanned before times had their own type,
		// which lists it as a string, still stores that text; OGR keeps
		// seconds as a float to the millisecond, so the fraction is
		// rounded there (56.789, not 56.789001464).
		ms := int(math.Round(float64(v.Second) * 1000))
		return time.Date(0, 1, 1, v.Hour, v.Minute, 0, ms*int(time.Millisecond), time.UTC).Format("15:04:05.999")
	}
	sec := float64(v.Second)
	loc := time.UTC
	// TZ: 0 unknown, 1 local, 100 UTC, 100±n offset in 15-minute steps.
	if v.TZ > 1 && v.TZ != 100 {
		loc = time.FixedZone("", (v.TZ-100)*15*60)
	}
	ns := int((sec - float64(int(sec))) * 1e9)
	return time.Date(v.Year, time.Month(v.Month), v.Day, v.Hour, v.Minute, int(sec), ns, loc)
}
