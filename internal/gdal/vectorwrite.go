package gdal

/*
#include <malloc.h>
#include <stdlib.h>
#include "xwrite.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Clip is the geometry work shared by every part of one exported item:
// the clip area (EPSG:4326) prepared for fast tests, and the
// reprojection to the target CRS. It lives in C memory: Close it.
type Clip struct{ g *C.xgeo }

// NewClip prepares the clip (ISO WKB; none when empty) and the
// transformation from EPSG:4326 to epsg.
func NewClip(clip []byte, epsg int) (*Clip, error) {
	Init()
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
	return &Clip{g}, nil
}

// Close frees the clip.
func (c *Clip) Close() { C.xgFree(c.g) }

// Envelope is the clip's box in EPSG:4326, the whole world without one.
func (c *Clip) Envelope() [4]float64 {
	var e [4]C.double
	C.xgEnvelope(c.g, &e[0])
	return [4]float64{float64(e[0]), float64(e[1]), float64(e[2]), float64(e[3])}
}

// VectorLayer is what an output dataset and its one layer are created
// with.
type VectorLayer struct {
	Driver, Path, Layer string
	DSCO, LCO           []string // dataset and layer creation options
	GeomType            GeomType // GeomNone for tables
	// Names, Types and Booleans describe the fields: Types holds 1
	// integer, 2 real, 3 string, 4 date, 5 date-time, 6 time of day;
	// Booleans marks the integers that are booleans.
	Names        []string
	Types        []int
	Booleans     []bool
	NoAttributes bool // create no fields (the values are skipped)
	// SplitAt is the Shapefile part limit in bytes (0 = no split).
	SplitAt int64
	// PartFeatures ends a part after that many features (0 = no limit).
	PartFeatures int64
	// Pragma is SQL run on the new dataset (SQLite-based formats).
	Pragma string
}

// VectorWriter writes batches of rows into one open dataset, clipping
// and reprojecting them with a Clip.
//
// A batch is records one after another, little-endian:
//
//	int32 record length, int32 WKB length, float64 box[4], WKB,
//	then per field: kind byte and value
//	  0 null; 1 int64; 2 float64; 3 int32 length, bytes, NUL;
//	  4 int32 year, month, day, hour, minute, tz bytes, float64 seconds
//
// tz follows OGR: 0 unknown, 100 UTC, 100±n for n quarter hours.
type VectorWriter struct{ w *C.xw }

// ErrPartFull is Write's answer when a Shapefile part, or a part of
// PartFeatures features, is full: the rest goes into a new part.
var ErrPartFull = errors.New("the part is full")

// OpenVectorWriter creates the dataset and its layer.
func OpenVectorWriter(s VectorLayer, c *Clip) (*VectorWriter, error) {
	Init()
	cdrv, cpath, clayer := C.CString(s.Driver), C.CString(s.Path), C.CString(s.Layer)
	defer C.free(unsafe.Pointer(cdrv))
	defer C.free(unsafe.Pointer(cpath))
	defer C.free(unsafe.Pointer(clayer))
	dsco, freeDsco := cStrings(s.DSCO)
	defer freeDsco()
	lco, freeLco := cStrings(s.LCO)
	defer freeLco()
	n := max(len(s.Names), 1)
	types := (*C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(types))
	bools := (*C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(bools))
	ts, bs := unsafe.Slice(types, n), unsafe.Slice(bools, n)
	for i := range s.Names {
		ts[i] = C.int(s.Types[i])
		if s.Booleans[i] {
			bs[i] = 1
		}
	}
	cnames, freeNames := cStrings(s.Names)
	defer freeNames()
	noattrs := C.int(0)
	if s.NoAttributes {
		noattrs = 1
	}
	cpragma := C.CString(s.Pragma)
	defer C.free(unsafe.Pointer(cpragma))
	var msg [512]C.char
	w := C.xwOpen(cdrv, cpath, clayer, dsco, lco, C.int(s.GeomType), c.g, C.int(len(s.Names)), cnames, types, bools,
		noattrs, C.longlong(s.SplitAt), C.longlong(s.PartFeatures), cpragma, &msg[0], C.size_t(len(msg)))
	if w == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	return &VectorWriter{w}, nil
}

// Write writes the records of buf from *off on and returns the features
// written; ErrPartFull when a part is full (*off is the first record not
// written).
func (o *VectorWriter) Write(c *Clip, buf []byte, off *int) (int64, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	var written C.longlong
	coff := C.size_t(*off)
	rc := C.xwWrite(o.w, c.g, (*C.uchar)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &coff, &written)
	*off = int(coff)
	switch rc {
	case 0:
		return int64(written), nil
	case 1:
		return int64(written), ErrPartFull
	}
	return int64(written), errors.New(C.GoString(&o.w.err[0]))
}

// Begin starts a transaction where the driver has them.
func (o *VectorWriter) Begin() { C.xwTx(o.w, 1) }

// SpatialIndex builds a GeoPackage layer's spatial index.
func (o *VectorWriter) SpatialIndex() error {
	if C.xwSpatialIndex(o.w) != 0 {
		return errors.New(C.GoString(&o.w.err[0]))
	}
	return nil
}

// Commit commits the open transaction, if any.
func (o *VectorWriter) Commit() error {
	if C.xwTx(o.w, 0) != 0 {
		return errors.New(C.GoString(&o.w.err[0]))
	}
	return nil
}

// Close finishes the dataset (abort rolls back an open transaction).
func (o *VectorWriter) Close(abort bool) error {
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
		return errors.New(C.GoString(&msg[0]))
	}
	return nil
}
