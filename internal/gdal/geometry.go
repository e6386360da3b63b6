package gdal

/*
#include <stdlib.h>
#include <ogr_api.h>
*/
import "C"

import "errors"

// GeomInfo describes a feature's geometry: whether it has one, whether
// it is empty, its flattened OGR type, Z flag and envelope [minx, miny,
// maxx, maxy].
type GeomInfo struct {
	Present bool
	Empty   bool
	Flat    int
	HasZ    bool
	Env     [4]float64
}

// Geometry describes the feature's geometry.
func (f *Feature) Geometry() GeomInfo {
	g := C.OGR_F_GetGeometryRef(f.h)
	if g == nil {
		return GeomInfo{}
	}
	gi := GeomInfo{Present: true}
	t := C.OGR_G_GetGeometryType(g)
	gi.Flat = int(C.OGR_GT_Flatten(t))
	gi.HasZ = C.OGR_GT_HasZ(t) != 0
	if C.OGR_G_IsEmpty(g) != 0 {
		gi.Empty = true
		return gi
	}
	var env C.OGREnvelope
	C.OGR_G_GetEnvelope(g, &env)
	gi.Env = [4]float64{float64(env.MinX), float64(env.MinY), float64(env.MaxX), float64(env.MaxY)}
	return gi
}

// WKB is the feature's geometry as little-endian ISO WKB, nil when absent
// or empty.
func (f *Feature) WKB() ([]byte, error) {
	g := C.OGR_F_GetGeometryRef(f.h)
	if g == nil || C.OGR_G_IsEmpty(g) != 0 {
		return nil, nil
	}
	n := C.OGR_G_WkbSize(g)
	if n <= 0 {
		return nil, nil
	}
	buf := C.malloc(C.size_t(n))
	defer C.free(buf)
	if C.OGR_G_ExportToIsoWkb(g, C.wkbNDR, (*C.uchar)(buf)) != C.OGRERR_NONE {
		return nil, errors.New("cannot export geometry as WKB")
	}
	return C.GoBytes(buf, n), nil
}
