package gdal

/*
#include <cpl_vsi.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
*/
import "C"

import (
	"unsafe"

	"github.com/airbusgeo/godal"
)

// FieldType is an OGR field type.
type FieldType int

// The OGR field types a layer's schema tells apart; the rest (binary,
// lists) read as text.
const (
	FieldInteger   FieldType = C.OFTInteger
	FieldInteger64 FieldType = C.OFTInteger64
	FieldReal      FieldType = C.OFTReal
	FieldString    FieldType = C.OFTString
	FieldDate      FieldType = C.OFTDate
	FieldTime      FieldType = C.OFTTime
	FieldDateTime  FieldType = C.OFTDateTime
)

// FieldDefn is one attribute field of a layer: its name, OGR type and
// whether its subtype makes an integer a boolean.
type FieldDefn struct {
	Name    string
	Type    FieldType
	Boolean bool
}

// LayerFields are a godal layer's attribute fields, in order (godal
// exposes no layer schema).
func LayerFields(l godal.Layer) []FieldDefn {
	defn := C.OGR_L_GetLayerDefn(layerHandle(l))
	n := int(C.OGR_FD_GetFieldCount(defn))
	out := make([]FieldDefn, 0, n)
	for i := 0; i < n; i++ {
		fd := C.OGR_FD_GetFieldDefn(defn, C.int(i))
		out = append(out, FieldDefn{
			Name:    C.GoString(C.OGR_Fld_GetNameRef(fd)),
			Type:    FieldType(C.OGR_Fld_GetType(fd)),
			Boolean: C.OGR_Fld_GetSubType(fd) == C.OFSTBoolean,
		})
	}
	return out
}

// LayerHasGeometry reports whether the layer has a geometry column.
func LayerHasGeometry(l godal.Layer) bool {
	return C.OGR_FD_GetGeomFieldCount(C.OGR_L_GetLayerDefn(layerHandle(l))) > 0
}

// LayerGeometryColumn is the name of the layer's first geometry column,
// "" when it has none or the driver does not name it.
func LayerGeometryColumn(l godal.Layer) string {
	if !LayerHasGeometry(l) {
		return ""
	}
	return C.GoString(C.OGR_L_GetGeometryColumn(layerHandle(l)))
}

// LayerFIDColumn is the name of the column the driver reads as the FID,
// "" when none.
func LayerFIDColumn(l godal.Layer) string {
	return C.GoString(C.OGR_L_GetFIDColumn(layerHandle(l)))
}

// LayerGeomType is the declared geometry type of the layer, flattened (0
// unknown, 100 none), and whether it has Z.
func LayerGeomType(l godal.Layer) (flat int, hasZ bool) {
	t := C.OGR_L_GetGeomType(layerHandle(l))
	return int(C.OGR_GT_Flatten(t)), C.OGR_GT_HasZ(t) != 0
}

// LayerSRSWKT is the WKT of the layer's spatial reference, "" if none.
func LayerSRSWKT(l godal.Layer) string {
	sr := C.OGR_L_GetSpatialRef(layerHandle(l))
	if sr == nil {
		return ""
	}
	var out *C.char
	if C.OSRExportToWkt(sr, &out) != C.OGRERR_NONE || out == nil {
		return ""
	}
	defer C.VSIFree(unsafe.Pointer(out))
	return C.GoString(out)
}
