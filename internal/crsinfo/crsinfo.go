// Package crsinfo answers what PROJ knows about an EPSG coordinate
// reference system beyond its definition: whether it draws maps at all
// (geographic or projected, not vertical, geocentric or engineering) and
// the area of the Earth it is meant for. The doors that take a CRS from a
// caller (OGC API Features, WFS, exports) refuse one that cannot serve
// them with a reason, before any work (issue 24).
package crsinfo

/*
#cgo pkg-config: gdal
#include <ogr_srs_api.h>
#include <cpl_error.h>

static OGRSpatialReferenceH crsinfoNew(int code) {
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

// crsinfoHorizontal: 1 geographic or projected, 0 other, -1 unknown.
static int crsinfoHorizontal(int code) {
	OGRSpatialReferenceH h = crsinfoNew(code);
	if (h == NULL) return -1;
	int out = (OSRIsGeographic(h) || OSRIsProjected(h)) && !OSRIsGeocentric(h);
	OSRDestroySpatialReference(h);
	return out;
}

// crsinfoArea: 1 with the area of use in degrees, 0 none, -1 unknown.
static int crsinfoArea(int code, double *w, double *s, double *e, double *n) {
	OGRSpatialReferenceH h = crsinfoNew(code);
	if (h == NULL) return -1;
	const char *name = NULL;
	int ok = OSRGetAreaOfUse(h, w, s, e, n, &name);
	OSRDestroySpatialReference(h);
	return ok ? 1 : 0;
}
*/
import "C"

// Kind says whether PROJ knows a code and whether it draws maps.
type Kind int

const (
	Unknown    Kind = iota // PROJ does not know the code
	Horizontal             // geographic or projected
	Other                  // vertical, geocentric, engineering...
)

// KindOf classifies EPSG code.
func KindOf(code int) Kind {
	switch C.crsinfoHorizontal(C.int(code)) {
	case 1:
		return Horizontal
	case 0:
		return Other
	}
	return Unknown
}

// Area is an area of use in degrees: West may exceed East when it crosses
// the antimeridian.
type Area struct{ West, South, East, North float64 }

// AreaOf is the area EPSG code is meant for; ok is false when PROJ has
// none for it.
func AreaOf(code int) (a Area, ok bool) {
	var w, s, e, n C.double
	if C.crsinfoArea(C.int(code), &w, &s, &e, &n) != 1 {
		return Area{}, false
	}
	return Area{float64(w), float64(s), float64(e), float64(n)}, true
}

// Meets reports whether the area meets the lon/lat box [minx, miny, maxx,
// maxy] (minx <= maxx).
func (a Area) Meets(b [4]float64) bool {
	if b[3] < a.South || b[1] > a.North {
		return false
	}
	if a.West <= a.East {
		return b[2] >= a.West && b[0] <= a.East
	}
	// Across the antimeridian: west of 180 or east of -180.
	return b[2] >= a.West || b[0] <= a.East
}
