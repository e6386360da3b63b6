package ingest

/*
#cgo pkg-config: gdal
#include <stdlib.h>
#include <stdio.h>
#include "ogr_api.h"
#include "ogr_srs_api.h"
#include "cpl_error.h"
#include "cpl_vsi.h"

// Quiet error handler: remembers the last failure instead of printing it.
static void ingestQuiet(CPLErr e, CPLErrorNum n, const char *msg) {
	(void)e; (void)n; (void)msg;
}

// ingestNext fetches the next feature. *failed is set (and msg filled) when
// GDAL reported a failure, which OGR_L_GetNextFeature alone cannot tell
// apart from the end of the layer.
static OGRFeatureH ingestNext(OGRLayerH l, int *failed, char *msg, size_t msglen) {
	CPLPushErrorHandler(ingestQuiet);
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

static int ingestFieldSubType(OGRFieldDefnH d) { return (int)OGR_Fld_GetSubType(d); }
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/airbusgeo/godal"
)

// godal v0.0.18 exposes no layer schema, no feature FID and no error from
// NextFeature, so this file reads those through the OGR C API on the
// layer handle. godal.Layer is a struct holding exactly the C handle; the
// init check below fails loudly if a godal upgrade changes that.
func init() {
	if unsafe.Sizeof(godal.Layer{}) != unsafe.Sizeof(uintptr(0)) {
		panic("ingest: godal.Layer layout changed; update layerHandle")
	}
}

func layerHandle(l godal.Layer) C.OGRLayerH {
	return *(*C.OGRLayerH)(unsafe.Pointer(&l))
}

// ogrField is one attribute column of a layer: the OGR field at index
// idx, or (fid set) the layer's FID column kept as an attribute.
type ogrField struct {
	name string
	typ  string // Field.Type vocabulary
	ogr  C.OGRFieldType
	idx  int
	fid  bool
}

// layerSchema returns the attribute fields in order and the name of the
// first geometry column ("" when the driver does not name it).
func layerSchema(l godal.Layer) (fields []ogrField, geomName string) {
	h := layerHandle(l)
	defn := C.OGR_L_GetLayerDefn(h)
	n := int(C.OGR_FD_GetFieldCount(defn))
	for i := 0; i < n; i++ {
		fd := C.OGR_FD_GetFieldDefn(defn, C.int(i))
		t := C.OGR_Fld_GetType(fd)
		fields = append(fields, ogrField{
			name: C.GoString(C.OGR_Fld_GetNameRef(fd)),
			typ:  fieldType(t, int(C.ingestFieldSubType(fd))),
			ogr:  t,
			idx:  i,
		})
	}
	if C.OGR_FD_GetGeomFieldCount(defn) > 0 {
		geomName = C.GoString(C.OGR_L_GetGeometryColumn(h))
	}
	return fields, geomName
}

// gdalDefaultFID is the name GDAL gives a GeoPackage's primary-key column
// unless told otherwise.
const gdalDefaultFID = "fid"

// withDeclaredKey adds a GeoPackage layer's primary-key column to its
// fields, first, as an integer attribute holding each feature's FID, and
// returns its name as the layer's declared key: GDAL reads that column as
// the FID only, so without this the key would be lost on import. Only a
// column named otherwise than GDAL's default (fid) counts: GDAL writes
// that one into every GeoPackage it creates, numbering the rows 1..n
// whatever the source, so it is a row number (as a shapefile's FID is),
// and keeping it would add a field to every GeoPackage layer. Other
// drivers declare no key here.
func withDeclaredKey(l godal.Layer, driver string, fields []ogrField) ([]ogrField, string) {
	if driver != "GPKG" {
		return fields, ""
	}
	name := C.GoString(C.OGR_L_GetFIDColumn(layerHandle(l)))
	if name == "" || strings.EqualFold(name, gdalDefaultFID) {
		return fields, ""
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, name) {
			return fields, ""
		}
	}
	return append([]ogrField{{name: name, typ: "integer", ogr: C.OFTInteger64, fid: true}}, fields...), name
}

func fieldType(t C.OGRFieldType, sub int) string {
	switch t {
	case C.OFTInteger:
		if sub == int(C.OFSTBoolean) {
			return "boolean"
		}
		return "integer"
	case C.OFTInteger64:
		return "integer"
	case C.OFTReal:
		return "double"
	case C.OFTDate:
		return "date"
	case C.OFTDateTime:
		return "datetime"
	case C.OFTTime:
		return "time"
	default: // string, binary and list types
		return "string"
	}
}

// layerGeomType returns the declared geometry type of the layer, flattened
// (0 unknown, 100 none), and whether it has Z.
func layerGeomType(l godal.Layer) (flat int, hasZ bool) {
	t := C.OGR_L_GetGeomType(layerHandle(l))
	return int(C.OGR_GT_Flatten(t)), C.OGR_GT_HasZ(t) != 0
}

// layerHasGeometry reports whether the layer has a geometry column.
func layerHasGeometry(l godal.Layer) bool {
	return C.OGR_FD_GetGeomFieldCount(C.OGR_L_GetLayerDefn(layerHandle(l))) > 0
}

// layerSRSWKT returns the WKT of the layer's spatial reference, "" if none.
func layerSRSWKT(l godal.Layer) string {
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

// ogrFeature is a feature handle owned by the caller (close it).
type ogrFeature struct{ h C.OGRFeatureH }

var errFeatureRead = errors.New("feature read failed")

// nextFeature returns the next feature, nil at the end of the layer, or an
// error GDAL raised while reading.
func nextFeature(l godal.Layer) (*ogrFeature, error) {
	var failed C.int
	msg := (*C.char)(C.malloc(512))
	defer C.free(unsafe.Pointer(msg))
	h := C.ingestNext(layerHandle(l), &failed, msg, 512)
	if failed != 0 {
		if h != nil {
			C.OGR_F_Destroy(h)
		}
		return nil, fmt.Errorf("%w: %s", errFeatureRead, C.GoString(msg))
	}
	if h == nil {
		return nil, nil
	}
	return &ogrFeature{h}, nil
}

func (f *ogrFeature) close() { C.OGR_F_Destroy(f.h) }

func (f *ogrFeature) fid() int64 { return int64(C.OGR_F_GetFID(f.h)) }

// geomInfo describes a feature's geometry: flattened OGR type, Z flag,
// emptiness and envelope.
type geomInfo struct {
	present bool
	empty   bool
	flat    int
	hasZ    bool
	env     [4]float64
}

func (f *ogrFeature) geometry() geomInfo {
	g := C.OGR_F_GetGeometryRef(f.h)
	if g == nil {
		return geomInfo{}
	}
	gi := geomInfo{present: true}
	t := C.OGR_G_GetGeometryType(g)
	gi.flat = int(C.OGR_GT_Flatten(t))
	gi.hasZ = C.OGR_GT_HasZ(t) != 0
	if C.OGR_G_IsEmpty(g) != 0 {
		gi.empty = true
		return gi
	}
	var env C.OGREnvelope
	C.OGR_G_GetEnvelope(g, &env)
	gi.env = [4]float64{float64(env.MinX), float64(env.MinY), float64(env.MaxX), float64(env.MaxY)}
	return gi
}

// wkb returns the geometry as little-endian ISO WKB, nil when absent or
// empty.
func (f *ogrFeature) wkb() ([]byte, error) {
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

// value returns field fd as a Go value of the type matching ogrField.typ, nil
// when unset or null.
func (f *ogrFeature) value(fd ogrField) any {
	if fd.fid {
		if id := f.fid(); id != int64(C.OGRNullFID) {
			return id
		}
		return nil
	}
	ci := C.int(fd.idx)
	if C.OGR_F_IsFieldSetAndNotNull(f.h, ci) == 0 {
		return nil
	}
	switch fd.typ {
	case "boolean":
		return C.OGR_F_GetFieldAsInteger(f.h, ci) != 0
	case "integer":
		return int64(C.OGR_F_GetFieldAsInteger64(f.h, ci))
	case "double":
		return float64(C.OGR_F_GetFieldAsDouble(f.h, ci))
	case "date", "datetime":
		var y, mo, d, h, mi, tz C.int
		var s C.float
		if C.OGR_F_GetFieldAsDateTimeEx(f.h, ci, &y, &mo, &d, &h, &mi, &s, &tz) == 0 {
			return nil
		}
		sec := float64(s)
		loc := time.UTC
		// tz: 0 unknown, 1 local, 100 UTC, 100±n offset in 15-minute steps.
		if tz > 1 && tz != 100 {
			loc = time.FixedZone("", int(tz-100)*15*60)
		}
		ns := int((sec - float64(int(sec))) * 1e9)
		return time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(sec), ns, loc)
	case "time":
		// A time of day as text, "12:34:56" (any zone left aside), so
		// that a datasource scanned before times had their own type,
		// which lists it as a string, still stores that text; OGR keeps
		// seconds as a float to the millisecond, so the fraction is
		// rounded there (56.789, not 56.789001464).
		var y, mo, d, h, mi, tz C.int
		var s C.float
		if C.OGR_F_GetFieldAsDateTimeEx(f.h, ci, &y, &mo, &d, &h, &mi, &s, &tz) == 0 {
			return nil
		}
		ms := int(math.Round(float64(s) * 1000))
		return time.Date(0, 1, 1, int(h), int(mi), 0, ms*int(time.Millisecond), time.UTC).Format("15:04:05.999")
	default:
		return C.GoString(C.OGR_F_GetFieldAsString(f.h, ci))
	}
}
