package gdal

/*
#include <ogr_srs_api.h>

OGRSpatialReferenceH epsgNew(int code); // epsg.go

// transformCRS is EPSG CRS code with axis mapping s, or NULL when PROJ
// does not know the code. CRS84, how features are stored, is EPSG:4326
// in the traditional GIS order (longitude, latitude); a request's CRS
// keeps its authority's order.
static OGRSpatialReferenceH transformCRS(int code, OSRAxisMappingStrategy s) {
	OGRSpatialReferenceH h = epsgNew(code);
	if (h != NULL) OSRSetAxisMappingStrategy(h, s);
	return h;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// ErrUnknownEPSG is NewTransform's answer for an EPSG code PROJ does not
// know.
var ErrUnknownEPSG = errors.New("unknown EPSG code")

// ErrOutsideDomain reports coordinates PROJ could not transform (outside
// the target CRS's domain).
var ErrOutsideDomain = errors.New("coordinates outside the CRS's domain")

// Transform converts coordinates between CRS84 (longitude, latitude) and
// one EPSG CRS, in each CRS's own axis order. It is not safe for
// concurrent use.
type Transform struct {
	fwd, inv C.OGRCoordinateTransformationH
	src, dst C.OGRSpatialReferenceH
}

// NewTransform returns the transform from CRS84 to EPSG code; Close it.
func NewTransform(code int) (*Transform, error) {
	t := &Transform{src: C.transformCRS(4326, C.OAMS_TRADITIONAL_GIS_ORDER), dst: C.transformCRS(C.int(code), C.OAMS_AUTHORITY_COMPLIANT)}
	if t.src == nil || t.dst == nil {
		t.Close()
		return nil, ErrUnknownEPSG
	}
	t.fwd = C.OCTNewCoordinateTransformation(t.src, t.dst)
	t.inv = C.OCTNewCoordinateTransformation(t.dst, t.src)
	if t.fwd == nil || t.inv == nil {
		t.Close()
		return nil, fmt.Errorf("no transformation between CRS84 and EPSG:%d", code)
	}
	return t, nil
}

// Close frees the PROJ objects.
func (t *Transform) Close() {
	if t.fwd != nil {
		C.OCTDestroyCoordinateTransformation(t.fwd)
	}
	if t.inv != nil {
		C.OCTDestroyCoordinateTransformation(t.inv)
	}
	if t.src != nil {
		C.OSRDestroySpatialReference(t.src)
	}
	if t.dst != nil {
		C.OSRDestroySpatialReference(t.dst)
	}
	*t = Transform{}
}

// Forward transforms flat coordinates (stride values per position, x and y
// first) from CRS84 to the target CRS in place.
func (t *Transform) Forward(flat []float64, stride int) error {
	return transform(t.fwd, flat, stride)
}

// Inverse transforms flat coordinates from the target CRS to CRS84 in
// place.
func (t *Transform) Inverse(flat []float64, stride int) error {
	return transform(t.inv, flat, stride)
}

func transform(ct C.OGRCoordinateTransformationH, flat []float64, stride int) error {
	n := len(flat) / stride
	if n == 0 {
		return nil
	}
	xs := make([]float64, 2*n)
	ys := xs[n:]
	xs = xs[:n]
	for i := 0; i < n; i++ {
		xs[i], ys[i] = flat[i*stride], flat[i*stride+1]
	}
	ok := C.OCTTransform(ct, C.int(n), (*C.double)(unsafe.Pointer(&xs[0])), (*C.double)(unsafe.Pointer(&ys[0])), nil)
	if ok == 0 {
		return ErrOutsideDomain
	}
	for i := 0; i < n; i++ {
		flat[i*stride], flat[i*stride+1] = xs[i], ys[i]
	}
	return nil
}

// InverseBounds returns the CRS84 box [minlon, minlat, maxlon, maxlat]
// covering a box given in the target CRS's axis order, its edges densified
// so curved outlines are covered.
func (t *Transform) InverseBounds(b [4]float64) ([4]float64, error) {
	var out [4]C.double
	ok := C.OCTTransformBounds(t.inv, C.double(b[0]), C.double(b[1]), C.double(b[2]), C.double(b[3]),
		&out[0], &out[1], &out[2], &out[3], 21)
	if ok == 0 {
		return [4]float64{}, ErrOutsideDomain
	}
	return [4]float64{float64(out[0]), float64(out[1]), float64(out[2]), float64(out[3])}, nil
}
