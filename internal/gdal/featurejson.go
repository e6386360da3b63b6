package gdal

/*
#include <stdlib.h>
#include <cpl_conv.h>
#include <cpl_string.h>
#include <ogr_api.h>

// featureGeoJSON writes a feature's geometry as GeoJSON with 15
// significant digits, curves (GML surfaces, arcs) made linear first,
// since GeoJSON has no curves. *status is 0 for no or an empty geometry,
// 1 for a geometry, -1 when GDAL cannot write it; *type is the geometry's
// flattened type.
static char *featureGeoJSON(OGRFeatureH f, int *status, int *type) {
	OGRGeometryH g = OGR_F_GetGeometryRef(f);
	*status = 0;
	if (g == NULL || OGR_G_IsEmpty(g)) return NULL;
	*type = (int)OGR_GT_Flatten(OGR_G_GetGeometryType(g));
	OGRGeometryH lin = NULL;
	if (OGR_GT_IsNonLinear(OGR_G_GetGeometryType(g))) {
		lin = OGR_G_GetLinearGeometry(g, 0, NULL);
		if (lin == NULL) { *status = -1; return NULL; }
		g = lin;
	}
	char **opts = CSLSetNameValue(NULL, "SIGNIFICANT_FIGURES", "15");
	char *out = OGR_G_ExportToJsonEx(g, opts);
	CSLDestroy(opts);
	if (lin != NULL) OGR_G_DestroyGeometry(lin);
	*status = out == NULL ? -1 : 1;
	return out;
}

// featureHasValue says whether the feature's field name is set and not
// null (godal's IsSet is true for nulls).
static int featureHasValue(OGRFeatureH f, const char *name) {
	int i = OGR_F_GetFieldIndex(f, name);
	return i >= 0 && OGR_F_IsFieldSetAndNotNull(f, i);
}
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/airbusgeo/godal"
)

// FeatureGeoJSON writes a godal feature's geometry as GeoJSON (15
// significant digits, curves made linear); ok is false when it has none
// or an empty one. typ is the OGR flat geometry type.
func FeatureGeoJSON(f *godal.Feature) (js string, typ int, ok bool, err error) {
	var status, t C.int
	out := C.featureGeoJSON(featureHandle(f), &status, &t)
	switch status {
	case 0:
		return "", 0, false, nil
	case -1:
		return "", 0, false, errors.New("GDAL cannot write it as GeoJSON")
	}
	defer C.CPLFree(unsafe.Pointer(out))
	return C.GoString(out), int(t), true, nil
}

// FeatureHasValue says whether a godal feature's field name is set and
// not null (godal's IsSet is true for nulls).
func FeatureHasValue(f *godal.Feature, name string) bool {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	return C.featureHasValue(featureHandle(f), cn) != 0
}
