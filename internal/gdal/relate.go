package gdal

/*
#include <stdlib.h>
#include <ogr_api.h>
#include <cpl_error.h>

// relateWKB builds both geometries from WKB and applies predicate op (a
// Predicate): 1 true, 0 false, -1 a geometry could not be read, -2
// unknown op. GEOS failures (an invalid ring) are answered false by OGR;
// they are not logged.
static int relateWKB(int op, const void *a, int na, const void *b, int nb) {
	OGRGeometryH ga = NULL, gb = NULL;
	int out = -1;
	CPLPushErrorHandler(CPLQuietErrorHandler);
	if (OGR_G_CreateFromWkb(a, NULL, &ga, na) != OGRERR_NONE || OGR_G_CreateFromWkb(b, NULL, &gb, nb) != OGRERR_NONE) {
		goto done;
	}
	switch (op) {
	// OGR_G_Equals compares vertex by vertex (SQL/MM ST_OrderingEquals);
	// DE-9IM equality (T*F**FFF*, PostGIS's ST_Equals) is each geometry
	// within the other.
	case 0: out = OGR_G_Within(ga, gb) != 0 && OGR_G_Within(gb, ga) != 0; break;
	case 1: out = OGR_G_Disjoint(ga, gb) != 0; break;
	case 2: out = OGR_G_Touches(ga, gb) != 0; break;
	case 3: out = OGR_G_Within(ga, gb) != 0; break;
	case 4: out = OGR_G_Overlaps(ga, gb) != 0; break;
	case 5: out = OGR_G_Crosses(ga, gb) != 0; break;
	case 6: out = OGR_G_Intersects(ga, gb) != 0; break;
	case 7: out = OGR_G_Contains(ga, gb) != 0; break;
	default: out = -2;
	}
done:
	if (ga) OGR_G_DestroyGeometry(ga);
	if (gb) OGR_G_DestroyGeometry(gb);
	CPLPopErrorHandler();
	return out;
}

static int haveGEOS(void) {
	int a, b, c;
	return OGRGetGEOSVersion(&a, &b, &c) ? 1 : 0;
}
*/
import "C"

import "unsafe"

// Predicate is a DE-9IM spatial predicate GEOS evaluates.
type Predicate int

// The predicates, as OGC Simple Features names them.
const (
	Equals Predicate = iota // DE-9IM equality (PostGIS's ST_Equals), not vertex by vertex
	Disjoint
	Touches
	Within
	Overlaps
	Crosses
	Intersects
	Contains
)

// HaveGEOS reports whether GDAL was built with GEOS, which Relate needs.
func HaveGEOS() bool { return C.haveGEOS() == 1 }

// Relate reports whether p holds of the geometries a and b (WKB), in that
// order: Within is "a lies within b". ok is false when a geometry could
// not be read (or p is none of the predicates).
func Relate(p Predicate, a, b []byte) (holds, ok bool) {
	ca, cb := C.CBytes(a), C.CBytes(b)
	defer C.free(ca)
	defer C.free(cb)
	switch C.relateWKB(C.int(p), unsafe.Pointer(ca), C.int(len(a)), unsafe.Pointer(cb), C.int(len(b))) {
	case 1:
		return true, true
	case 0:
		return false, true
	}
	return false, false
}
