package exportfile

/*
#cgo pkg-config: gdal
#include <malloc.h>
#include <stdlib.h>
#include "xwrite.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/geopub/geopub/internal/gdal"
)

func registerDrivers() { gdal.Init() }

// geoWork is the clip and the reprojection of one item (C memory).
type geoWork struct{ g *C.xgeo }

func newGeoWork(clip []byte, epsg int) (*geoWork, error) {
	registerDrivers()
	var cclip *C.uchar
	if len(clip) > 0 {
		cclip = (*C.uchar)(C.CBytes(clip))
		defer C.free(unsafe.Pointer(cclip))
	}
	var msg [512]C.char
	g := C.xgNew(cclip, C.int(len(clip)), C.int(epsg), &msg[0], C.size_t(len(msg)))
	if g == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	return &geoWork{g}, nil
}

func (g *geoWork) close() { C.xgFree(g.g) }

// envelope is the clip's box in EPSG:4326.
func (g *geoWork) envelope() [4]float64 {
	var e [4]C.double
	C.xgEnvelope(g.g, &e[0])
	return [4]float64{float64(e[0]), float64(e[1]), float64(e[2]), float64(e[3])}
}

// layerSpec is what a dataset's layer is created with.
type layerSpec struct {
	driver, path, layer string
	dsco, lco           []string
	gtype               C.int // OGR geometry type, wkbNone for tables
	fields              []Field
	kinds               []fieldKind
	noAttributes        bool
	// splitAt is the Shapefile part limit in bytes (0 = no split).
	splitAt int64
	// partFeatures ends a part after that many features (0 = no limit).
	partFeatures int64
	// pragma is SQL run on the new dataset (SQLite-based formats).
	pragma string
}

// ogrWriter writes features into one open dataset.
type ogrWriter struct{ w *C.xw }

var errPartFull = errors.New("exportfile: the part is full")

func openWriter(s layerSpec, g *geoWork) (*ogrWriter, error) {
	registerDrivers()
	cdrv, cpath, clayer := C.CString(s.driver), C.CString(s.path), C.CString(s.layer)
	defer C.free(unsafe.Pointer(cdrv))
	defer C.free(unsafe.Pointer(cpath))
	defer C.free(unsafe.Pointer(clayer))
	dsco, freeDsco := cStrings(s.dsco)
	defer freeDsco()
	lco, freeLco := cStrings(s.lco)
	defer freeLco()
	names := make([]string, len(s.fields))
	n := max(len(s.fields), 1)
	types := (*C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(types))
	bools := (*C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(bools))
	ts, bs := unsafe.Slice(types, n), unsafe.Slice(bools, n)
	for i, f := range s.fields {
		names[i] = f.Name
		k := s.kinds[i]
		ts[i] = C.int(k.ogr)
		if k.boolean {
			bs[i] = 1
		}
	}
	cnames, freeNames := cStrings(names)
	defer freeNames()
	noattrs := C.int(0)
	if s.noAttributes {
		noattrs = 1
	}
	cpragma := C.CString(s.pragma)
	defer C.free(unsafe.Pointer(cpragma))
	var msg [512]C.char
	w := C.xwOpen(cdrv, cpath, clayer, dsco, lco, s.gtype, g.g, C.int(len(s.fields)), cnames, types, bools,
		noattrs, C.longlong(s.splitAt), C.longlong(s.partFeatures), cpragma, &msg[0], C.size_t(len(msg)))
	if w == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	return &ogrWriter{w}, nil
}

// write writes the records of buf from *off on and returns the features
// written; errPartFull when a Shapefile part is full (*off is the first
// record not written).
func (o *ogrWriter) write(g *geoWork, buf []byte, off *int) (int64, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	var written C.longlong
	coff := C.size_t(*off)
	rc := C.xwWrite(o.w, g.g, (*C.uchar)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &coff, &written)
	*off = int(coff)
	switch rc {
	case 0:
		return int64(written), nil
	case 1:
		return int64(written), errPartFull
	}
	return int64(written), errors.New(C.GoString(&o.w.err[0]))
}

func (o *ogrWriter) begin() { C.xwTx(o.w, 1) }

// spatialIndex builds a GeoPackage layer's spatial index.
func (o *ogrWriter) spatialIndex() error {
	if C.xwSpatialIndex(o.w) != 0 {
		return errors.New(C.GoString(&o.w.err[0]))
	}
	return nil
}

func (o *ogrWriter) commit() error {
	if C.xwTx(o.w, 0) != 0 {
		return errors.New(C.GoString(&o.w.err[0]))
	}
	return nil
}

// close finishes the dataset (abort rolls back an open transaction).
func (o *ogrWriter) close(abort bool) error {
	var msg [512]C.char
	a := C.int(0)
	if abort {
		a = 1
	}
	rc := C.xwClose(o.w, a, &msg[0], C.size_t(len(msg)))
	o.w = nil
	// GDAL frees a closed dataset's buffers (a FlatGeobuf part's index:
	// tens of MB) into the calling thread's malloc arena, which keeps them;
	// parts close on other threads, so without a trim the resident size
	// would grow with every part.
	C.malloc_trim(0)
	if rc != 0 {
		return fmt.Errorf("exportfile: %s", C.GoString(&msg[0]))
	}
	return nil
}

// cStrings is a NULL-terminated C array of copies of ss, and its free.
func cStrings(ss []string) (**C.char, func()) {
	arr := (**C.char)(C.calloc(C.size_t(len(ss)+1), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	items := unsafe.Slice(arr, len(ss)+1)
	for i, s := range ss {
		items[i] = C.CString(s)
	}
	return arr, func() {
		for _, p := range items[:len(ss)] {
			C.free(unsafe.Pointer(p))
		}
		C.free(unsafe.Pointer(arr))
	}
}

// OGR geometry type codes of the layer version vocabulary.
var ogrGeomTypes = map[string]C.int{
	"point": C.wkbPoint, "linestring": C.wkbLineString, "polygon": C.wkbPolygon,
	"multipoint": C.wkbMultiPoint, "multilinestring": C.wkbMultiLineString, "multipolygon": C.wkbMultiPolygon,
}

// layerGeomType is the OGR type of a layer of geometry type g: the multi
// type when clipped (a cut can split a line or polygon), wkbUnknown for
// mixed layers, wkbNone for tables; Z when hasZ.
func layerGeomType(g string, clipped, hasZ bool) C.int {
	if g == "" {
		return C.wkbNone
	}
	t, ok := ogrGeomTypes[g]
	if !ok {
		t = C.wkbUnknown
	}
	if clipped {
		switch t {
		case C.wkbLineString:
			t = C.wkbMultiLineString
		case C.wkbPolygon:
			t = C.wkbMultiPolygon
		}
	}
	if hasZ {
		t = C.int(C.OGR_GT_SetZ(C.OGRwkbGeometryType(t)))
	}
	return t
}
