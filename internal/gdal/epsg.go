package gdal

/*
#include <ogr_srs_api.h>
#include <cpl_error.h>

// epsgNew is EPSG CRS code, or NULL when PROJ does not know it; an
// unknown code is a caller's mistake, so GDAL is kept from printing it.
// Not static: transform.go opens its CRSs with it too.
OGRSpatialReferenceH epsgNew(int code) {
	OGRSpatialReferenceH h = OSRNewSpatialReference(NULL);
	if (h == NULL) return NULL;
	CPLPushErrorHandler(CPLQuietErrorHandler);
	OGRErr err = OSRImportFromEPSG(h, code);
	CPLPopErrorHandler();
	if (err != OGRERR_NONE) {
		OSRDestroySpatialReference(h);
		return NULL;
	}
	return h;
}

// epsgHorizontal: 1 geographic or projected, 0 other, -1 unknown.
static int epsgHorizontal(int code) {
	OGRSpatialReferenceH h = epsgNew(code);
	if (h == NULL) return -1;
	int out = (OSRIsGeographic(h) || OSRIsProjected(h)) && !OSRIsGeocentric(h);
	OSRDestroySpatialReference(h);
	return out;
}

// epsgArea: 1 with the area of use in degrees, 0 none, -1 unknown.
static int epsgArea(int code, double *w, double *s, double *e, double *n) {
	OGRSpatialReferenceH h = epsgNew(code);
	if (h == NULL) return -1;
	const char *name = NULL;
	int ok = OSRGetAreaOfUse(h, w, s, e, n, &name);
	OSRDestroySpatialReference(h);
	return ok ? 1 : 0;
}

// epsgNorthingFirst: 1 when code lists its axes latitude or northing
// first, 0 when not, -1 when PROJ does not know it.
static int epsgNorthingFirst(int code) {
	OGRSpatialReferenceH h = epsgNew(code);
	if (h == NULL) return -1;
	int out = OSREPSGTreatsAsLatLong(h) || OSREPSGTreatsAsNorthingEasting(h);
	OSRDestroySpatialReference(h);
	return out;
}
*/
import "C"

// ClassifyEPSG says whether PROJ knows EPSG code (known) and, if so,
// whether the CRS draws maps (horizontal: geographic or projected, not
// vertical, geocentric or engineering).
func ClassifyEPSG(code int) (horizontal, known bool) {
	switch C.epsgHorizontal(C.int(code)) {
	case 1:
		return true, true
	case 0:
		return false, true
	}
	return false, false
}

// AreaOfUse is the area EPSG code is meant for, in degrees (west may
// exceed east across the antimeridian); ok is false when PROJ has none
// for it or does not know the code.
func AreaOfUse(code int) (west, south, east, north float64, ok bool) {
	var w, s, e, n C.double
	if C.epsgArea(C.int(code), &w, &s, &e, &n) != 1 {
		return 0, 0, 0, 0, false
	}
	return float64(w), float64(s), float64(e), float64(n), true
}

// NorthingFirst reports whether the EPSG database lists the axes of CRS
// code latitude (or northing) first, as EPSG:4326 and EPSG:2193 do; false
// when PROJ does not know the code.
func NorthingFirst(code int) bool {
	return C.epsgNorthingFirst(C.int(code)) == 1
}
