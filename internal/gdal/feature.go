package gdal

/*
#include <stdlib.h>
#include <stdio.h>
#include <ogr_api.h>
#include <cpl_error.h>

// Quiet error handler: remembers the last failure instead of printing it.
static void featureQuiet(CPLErr e, CPLErrorNum n, const char *msg) {
	(void)e; (void)n; (void)msg;
}

// featureNext fetches the next feature. *failed is set (and msg filled)
// when GDAL reported a failure, which OGR_L_GetNextFeature alone cannot
// tell apart from the end of the layer.
static OGRFeatureH featureNext(OGRLayerH l, int *failed, char *msg, size_t msglen) {
	CPLPushErrorHandler(featureQuiet);
	CPLErrorReset();
	OGRFeatureH f = OGR_L_GetNextFeature(l);
	*failed = 0;
	if (CPLGetLastErrorType() >= CE_Failure) {
		*failed = 1;
		snprintf(msg, msglen, "%s", CPLGetLastErrorMsg());
	}
	CPLPopErrorHandler();
	return f;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/airbusgeo/godal"
)

// Feature is an OGR feature read with NextFeature, owned by the caller:
// Close it. Its field accessors take the field's index in the layer.
// Imports read through RecordReader, which packs many features per call
// into C; the accessors, one call per value, are the reference its tests
// hold it against (cgo cannot be used in test files, so they live here).
type Feature struct{ h C.OGRFeatureH }

// ErrFeatureRead wraps the error GDAL raised while reading a feature.
var ErrFeatureRead = errors.New("feature read failed")

// NullFID is the FID of a feature that has none.
const NullFID = int64(C.OGRNullFID)

// NextFeature returns the layer's next feature, nil at the end of the
// layer, or the error GDAL raised while reading (godal's NextFeature
// tells no error from the end).
func NextFeature(l godal.Layer) (*Feature, error) {
	var failed C.int
	msg := (*C.char)(C.malloc(512))
	defer C.free(unsafe.Pointer(msg))
	h := C.featureNext(layerHandle(l), &failed, msg, 512)
	if failed != 0 {
		if h != nil {
			C.OGR_F_Destroy(h)
		}
		return nil, fmt.Errorf("%w: %s", ErrFeatureRead, C.GoString(msg))
	}
	if h == nil {
		return nil, nil
	}
	return &Feature{h}, nil
}

// Close frees the feature.
func (f *Feature) Close() { C.OGR_F_Destroy(f.h) }

// FID is the feature's id, NullFID when it has none.
func (f *Feature) FID() int64 { return int64(C.OGR_F_GetFID(f.h)) }

// IsSet reports whether field i is set and not null.
func (f *Feature) IsSet(i int) bool { return C.OGR_F_IsFieldSetAndNotNull(f.h, C.int(i)) != 0 }

// Int is field i as a 32-bit integer.
func (f *Feature) Int(i int) int { return int(C.OGR_F_GetFieldAsInteger(f.h, C.int(i))) }

// Int64 is field i as a 64-bit integer.
func (f *Feature) Int64(i int) int64 { return int64(C.OGR_F_GetFieldAsInteger64(f.h, C.int(i))) }

// Float is field i as a real.
func (f *Feature) Float(i int) float64 { return float64(C.OGR_F_GetFieldAsDouble(f.h, C.int(i))) }

// Text is field i as text.
func (f *Feature) Text(i int) string { return C.GoString(C.OGR_F_GetFieldAsString(f.h, C.int(i))) }

// DateTime is field i as OGR keeps a date, time or date-time: seconds to
// the millisecond in a float32, and tz 0 unknown, 1 local, 100 UTC, 100±n
// an offset in 15-minute steps. ok is false when the field is not one.
func (f *Feature) DateTime(i int) (year, month, day, hour, minute int, second float32, tz int, ok bool) {
	var y, mo, d, h, mi, z C.int
	var s C.float
	if C.OGR_F_GetFieldAsDateTimeEx(f.h, C.int(i), &y, &mo, &d, &h, &mi, &s, &z) == 0 {
		return 0, 0, 0, 0, 0, 0, 0, false
	}
	return int(y), int(mo), int(d), int(h), int(mi), float32(s), int(z), true
}
