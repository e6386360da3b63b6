package gdal

/*
#include <ogr_api.h>
*/
import "C"

// GeomType is an OGR geometry type.
type GeomType int

// The OGR geometry types a created layer is declared with.
const (
	GeomNone            GeomType = C.wkbNone
	GeomUnknown         GeomType = C.wkbUnknown
	GeomPoint           GeomType = C.wkbPoint
	GeomLineString      GeomType = C.wkbLineString
	GeomPolygon         GeomType = C.wkbPolygon
	GeomMultiPoint      GeomType = C.wkbMultiPoint
	GeomMultiLineString GeomType = C.wkbMultiLineString
	GeomMultiPolygon    GeomType = C.wkbMultiPolygon
)

// WithZ is t with Z.
func (t GeomType) WithZ() GeomType {
	return GeomType(C.OGR_GT_SetZ(C.OGRwkbGeometryType(t)))
}
