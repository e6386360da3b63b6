package relate

/*
#cgo pkg-config: gdal
#include <stdlib.h>
#include <ogr_api.h>
#include <cpl_error.h>

// relate_wkb builds both geometries from WKB and applies predicate op
// (0 equals, 1 disjoint, 2 touches, 3 within, 4 overlaps, 5 crosses,
// 6 intersects, 7 contains): 1 true, 0 false, -1 a geometry could not be
// read, -2 unknown op. GEOS failures (an invalid ring) are answered false
// by OGR; they are not logged.
static int relate_wkb(int op, const void *a, int na, const void *b, int nb) {
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

static int have_geos(void) {
	int a, b, c;
	return OGRGetGEOSVersion(&a, &b, &c) ? 1 : 0;
}
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"
)

// Predicates are the names Relate takes, as CQL2 spells them.
var Predicates = []string{"s_equals", "s_disjoint", "s_touches", "s_within", "s_overlaps", "s_crosses", "s_intersects", "s_contains"}

// ErrNoGEOS is returned when GDAL was built without GEOS.
var ErrNoGEOS = errors.New("relate: GDAL has no GEOS")

// Available reports whether the predicates can be evaluated.
func Available() bool { return C.have_geos() == 1 }

// Relate reports whether predicate op (one of Predicates) holds of a and
// b, in that order: s_within(a, b) is "a lies within b".
func Relate(op string, a, b geom.T) (bool, error) {
	code := -1
	for i, p := range Predicates {
		if p == op {
			code = i
		}
	}
	if code < 0 {
		return false, fmt.Errorf("relate: unknown predicate %q", op)
	}
	if !Available() {
		return false, ErrNoGEOS
	}
	wa, err := wkb.Marshal(a, binary.LittleEndian)
	if err != nil {
		return false, fmt.Errorf("relate: %w", err)
	}
	wb, err := wkb.Marshal(b, binary.LittleEndian)
	if err != nil {
		return false, fmt.Errorf("relate: %w", err)
	}
	ca, cb := C.CBytes(wa), C.CBytes(wb)
	defer C.free(ca)
	defer C.free(cb)
	switch r := C.relate_wkb(C.int(code), unsafe.Pointer(ca), C.int(len(wa)), unsafe.Pointer(cb), C.int(len(wb))); r {
	case 1:
		return true, nil
	case 0:
		return false, nil
	default:
		return false, fmt.Errorf("relate: %s: a geometry could not be read", op)
	}
}
