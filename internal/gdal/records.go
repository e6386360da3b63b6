package gdal

/*
#include <stdlib.h>
#include "xrecords.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/airbusgeo/godal"
)

// PackAs says how a RecordReader reads a field.
type PackAs int

// How fields are read: as text, as a 64-bit integer (integers and
// booleans), as a real, as a date, time or date-time (RecordValue.DateTime),
// or the feature's FID as an integer attribute (Index unused).
const (
	PackText PackAs = iota
	PackInt
	PackReal
	PackDateTime
	PackFID
)

// PackField is one value a RecordReader reads of each feature: field
// Index of the layer, read as As.
type PackField struct {
	Index int
	As    PackAs
}

// ValueKind is what a RecordValue holds.
type ValueKind uint8

// Kinds of RecordValue: unset or null, Int, Float, Text, or a date-time
// (DateTime).
const (
	ValueNull ValueKind = iota
	ValueInt
	ValueReal
	ValueText
	ValueDateTime
)

// RecordValue is one field of a Record.
type RecordValue struct {
	Kind  ValueKind
	Int   int64
	Float float64
	// Text is valid until the reader's next Next.
	Text []byte
	// Date, time and zone as OGR keeps them: Year, Month, Day, Hour,
	// Minute, TZ (0 unknown, 1 local, 100 UTC, 100±n an offset in
	// 15-minute steps), and Second to the millisecond.
	Year, Month, Day, Hour, Minute, TZ int
	Second                             float32
}

// Record is one feature read by a RecordReader. Its slices are valid
// until the reader's next Next.
type Record struct {
	FID int64
	// WKB is the geometry as little-endian ISO WKB, nil when absent or
	// empty.
	WKB []byte
	// Values are the fields in the order the reader was made with.
	Values []RecordValue
}

// recordBatch is how many features one call into GDAL packs at most.
const recordBatch = 512

// recordBuffer is a new reader's buffer size; it grows for a feature that
// does not fit alone. A variable so tests can make it small.
var recordBuffer = 1 << 20

// RecordReader reads a layer's features in batches: one call into GDAL
// packs many features (FID, geometry, the chosen fields) into one buffer,
// which Next then walks, where NextFeature and its accessors cost a dozen
// calls into C per feature. It reads from the layer's current position;
// Close it.
type RecordReader struct {
	c      *C.xrecords
	buf    *C.uchar
	cap    int
	packed []byte // the current batch
	left   int    // records of the batch not yet returned
	err    error  // a read failure after the current batch
	done   bool
	rec    Record
	msg    *C.char
}

// NewRecordReader reads fields of l's features.
func NewRecordReader(l godal.Layer, fields []PackField) *RecordReader {
	c := (*C.xrecords)(C.calloc(1, C.size_t(unsafe.Sizeof(C.xrecords{}))))
	c.layer = layerHandle(l)
	c.n = C.int(len(fields))
	if len(fields) > 0 {
		c.idx = (*C.int)(C.malloc(C.size_t(len(fields)) * C.size_t(unsafe.Sizeof(C.int(0)))))
		c.kind = (*C.int)(C.malloc(C.size_t(len(fields)) * C.size_t(unsafe.Sizeof(C.int(0)))))
		idx := unsafe.Slice(c.idx, len(fields))
		kind := unsafe.Slice(c.kind, len(fields))
		for i, f := range fields {
			idx[i], kind[i] = C.int(f.Index), C.int(f.As)
		}
	}
	return &RecordReader{
		c:   c,
		buf: (*C.uchar)(C.malloc(C.size_t(recordBuffer))),
		cap: recordBuffer,
		msg: (*C.char)(C.malloc(512)),
		rec: Record{Values: make([]RecordValue, len(fields))},
	}
}

// Next returns the next feature, nil at the end of the layer, or the
// error GDAL raised while reading it (wrapping ErrFeatureRead).
func (r *RecordReader) Next() (*Record, error) {
	for r.left == 0 {
		if r.err != nil {
			err := r.err
			r.err = nil
			r.done = true
			return nil, err
		}
		if r.done {
			return nil, nil
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
	r.left--
	r.packed = r.rec.decode(r.packed)
	return &r.rec, nil
}

// fill packs the next batch.
func (r *RecordReader) fill() error {
	for {
		var used C.size_t
		var failed C.int
		n := C.xrecordsPack(r.c, r.buf, C.size_t(r.cap), &used, recordBatch, &failed, r.msg, 512)
		if failed != 0 {
			r.err = fmt.Errorf("%w: %s", ErrFeatureRead, C.GoString(r.msg))
		}
		if n < 0 {
			// One feature larger than the buffer: grow it and retry.
			if r.cap > math.MaxInt32 {
				return fmt.Errorf("%w: a feature larger than %d bytes", ErrFeatureRead, r.cap)
			}
			C.free(unsafe.Pointer(r.buf))
			r.cap *= 2
			r.buf = (*C.uchar)(C.malloc(C.size_t(r.cap)))
			continue
		}
		if n == 0 && failed == 0 {
			r.done = true
		}
		r.left = int(n)
		r.packed = unsafe.Slice((*byte)(unsafe.Pointer(r.buf)), int(used))
		return nil
	}
}

// decode reads one packed record from b and returns what follows it.
func (rec *Record) decode(b []byte) []byte {
	le := binary.NativeEndian
	rec.FID = int64(le.Uint64(b))
	n := int32(le.Uint32(b[8:]))
	b = b[12:]
	rec.WKB = nil
	if n >= 0 {
		rec.WKB, b = b[:n:n], b[n:]
	}
	for i := range rec.Values {
		v := &rec.Values[i]
		*v = RecordValue{Kind: ValueKind(b[0])}
		b = b[1:]
		switch v.Kind {
		case ValueInt:
			v.Int, b = int64(le.Uint64(b)), b[8:]
		case ValueReal:
			v.Float, b = math.Float64frombits(le.Uint64(b)), b[8:]
		case ValueText:
			n := int(le.Uint32(b))
			v.Text, b = b[4:4+n:4+n], b[4+n:]
		case ValueDateTime:
			at := func(k int) int { return int(int32(le.Uint32(b[4*k:]))) }
			v.Year, v.Month, v.Day, v.Hour, v.Minute, v.TZ = at(0), at(1), at(2), at(3), at(4), at(5)
			v.Second = math.Float32frombits(le.Uint32(b[24:]))
			b = b[28:]
		}
	}
	return b
}

// Close frees the reader's buffers and the feature it holds, if any.
func (r *RecordReader) Close() {
	if r.c == nil {
		return
	}
	C.xrecordsFree(r.c)
	C.free(unsafe.Pointer(r.c))
	C.free(unsafe.Pointer(r.buf))
	C.free(unsafe.Pointer(r.msg))
	r.c, r.buf, r.msg, r.packed = nil, nil, nil, nil
}
