package ogcfeatures

/*
#cgo pkg-config: gdal
#include <stdlib.h>
#include <ogr_srs_api.h>
#include <cpl_error.h>

// ogcNewCRS returns the EPSG CRS code in its authority's axis order, or
// NULL when PROJ does not know it.
static OGRSpatialReferenceH ogcNewCRS(int code) {
	OGRSpatialReferenceH h = OSRNewSpatialReference(NULL);
	if (h == NULL) return NULL;
	// An unknown code is the caller's mistake, answered with a 400: keep
	// GDAL from printing it.
	CPLPushErrorHandler(CPLQuietErrorHandler);
	OGRErr err = OSRImportFromEPSG(h, code);
	CPLPopErrorHandler();
	if (err != OGRERR_NONE) {
		OSRDestroySpatialReference(h);
		return NULL;
	}
	OSRSetAxisMappingStrategy(h, OAMS_AUTHORITY_COMPLIANT);
	return h;
}

// ogcNewCRS84 is WGS 84 in longitude, latitude order: how features are
// stored.
static OGRSpatialReferenceH ogcNewCRS84(void) {
	OGRSpatialReferenceH h = OSRNewSpatialReference(NULL);
	if (h == NULL) return NULL;
	if (OSRImportFromEPSG(h, 4326) != OGRERR_NONE) {
		OSRDestroySpatialReference(h);
		return NULL;
	}
	OSRSetAxisMappingStrategy(h, OAMS_TRADITIONAL_GIS_ORDER);
	return h;
}

// ogcNorthingFirst reports whether EPSG code lists its axes latitude or
// northing first; -1 when PROJ does not know it.
static int ogcNorthingFirst(int code) {
	OGRSpatialReferenceH h = ogcNewCRS(code);
	if (h == NULL) return -1;
	int out = OSREPSGTreatsAsLatLong(h) || OSREPSGTreatsAsNorthingEasting(h);
	OSRDestroySpatialReference(h);
	return out;
}

*/
import "C"

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/geopub/geopub/internal/crsinfo"
)

// CRS84URI names WGS 84 longitude, latitude: the default CRS and the
// storage CRS.
const CRS84URI = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"

// epsgPrefix starts the URI of every EPSG CRS.
const epsgPrefix = "http://www.opengis.net/def/crs/EPSG/0/"

// CRS is a coordinate reference system a request names: CRS84 (EPSG 0
// here) or an EPSG code.
type CRS struct {
	EPSG int // 0 for CRS84
}

// URI is the CRS's OGC URI.
func (c CRS) URI() string {
	if c.EPSG == 0 {
		return CRS84URI
	}
	return epsgPrefix + strconv.Itoa(c.EPSG)
}

// IsCRS84 reports whether c is the storage CRS (no reprojection).
func (c CRS) IsCRS84() bool { return c.EPSG == 0 }

// NorthingFirst reports whether c's authority lists its axes latitude
// (or northing) first, as EPSG:4326 and EPSG:2193 do: the order of the
// Transformer's output. CRS84 is longitude first.
func (c CRS) NorthingFirst() bool {
	return c.EPSG != 0 && C.ogcNorthingFirst(C.int(c.EPSG)) == 1
}

// errUnknownCRS is the answer for a CRS that is not CRS84 nor an EPSG code
// PROJ knows.
var errUnknownCRS = errors.New("unsupported CRS")

// ErrNotHorizontal is the answer for an EPSG CRS without horizontal
// axes (a vertical CRS such as EPSG:5773, a geocentric one): features
// cannot be given, nor boxes read, in it.
var ErrNotHorizontal = errors.New("not a horizontal CRS: give a geographic or projected CRS")

// ParseCRS reads a CRS URI (http://www.opengis.net/def/crs/EPSG/0/{code},
// .../OGC/1.3/CRS84, or the [EPSG:code] safe-CURIE forms) and checks that
// PROJ knows it and that it has horizontal axes (ErrNotHorizontal when
// not): every door resolves its CRS parameters here.
func ParseCRS(s string) (CRS, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimPrefix(t, "["), "]")
	switch {
	case t == CRS84URI, strings.EqualFold(t, "OGC:CRS84"), t == "http://www.opengis.net/def/crs/OGC/0/CRS84":
		return CRS{}, nil
	}
	var code string
	switch {
	case strings.HasPrefix(t, epsgPrefix):
		code = t[len(epsgPrefix):]
	case len(t) > 5 && strings.EqualFold(t[:5], "EPSG:"):
		code = t[5:]
	default:
		return CRS{}, errUnknownCRS
	}
	n, err := strconv.Atoi(code)
	if err != nil || n <= 0 || n > 1<<30 {
		return CRS{}, errUnknownCRS
	}
	switch crsinfo.KindOf(n) {
	case crsinfo.Unknown:
		return CRS{}, errUnknownCRS
	case crsinfo.Other:
		return CRS{}, ErrNotHorizontal
	}
	return CRS{EPSG: n}, nil
}

// Transformer converts coordinates between CRS84 and one CRS, in each
// CRS's own axis order. It is not safe for concurrent use: one per
// request.
type Transformer struct {
	fwd, inv C.OGRCoordinateTransformationH
	src, dst C.OGRSpatialReferenceH
}

// NewTransformer returns the transformer from CRS84 to c; Close it.
func NewTransformer(c CRS) (*Transformer, error) {
	t := &Transformer{src: C.ogcNewCRS84(), dst: C.ogcNewCRS(C.int(c.EPSG))}
	if t.src == nil || t.dst == nil {
		t.Close()
		return nil, errUnknownCRS
	}
	t.fwd = C.OCTNewCoordinateTransformation(t.src, t.dst)
	t.inv = C.OCTNewCoordinateTransformation(t.dst, t.src)
	if t.fwd == nil || t.inv == nil {
		t.Close()
		return nil, fmt.Errorf("no transformation between CRS84 and EPSG:%d", c.EPSG)
	}
	return t, nil
}

// Close frees the PROJ objects.
func (t *Transformer) Close() {
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
	*t = Transformer{}
}

// errTransform reports coordinates PROJ could not transform (outside the
// target CRS's domain).
var errTransform = errors.New("coordinates outside the CRS's domain")

// IsTransformError reports whether err is coordinates outside a CRS's
// domain (the caller's choice of CRS, a 400).
func IsTransformError(err error) bool { return errors.Is(err, errTransform) }

// Forward transforms flat coordinates (stride values per position, x and y
// first) from CRS84 to the target CRS in place.
func (t *Transformer) Forward(flat []float64, stride int) error {
	return transform(t.fwd, flat, stride)
}

// Inverse transforms flat coordinates from the target CRS to CRS84 in
// place.
func (t *Transformer) Inverse(flat []float64, stride int) error {
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
		return errTransform
	}
	for i := 0; i < n; i++ {
		flat[i*stride], flat[i*stride+1] = xs[i], ys[i]
	}
	return nil
}

// InverseBounds returns the CRS84 box [minlon, minlat, maxlon, maxlat]
// covering a box given in the target CRS's axis order, its edges densified
// so curved outlines are covered.
func (t *Transformer) InverseBounds(b [4]float64) ([4]float64, error) {
	var out [4]C.double
	ok := C.OCTTransformBounds(t.inv, C.double(b[0]), C.double(b[1]), C.double(b[2]), C.double(b[3]),
		&out[0], &out[1], &out[2], &out[3], 21)
	if ok == 0 {
		return [4]float64{}, errTransform
	}
	return [4]float64{float64(out[0]), float64(out[1]), float64(out[2]), float64(out[3])}, nil
}
