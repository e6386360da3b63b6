package featurerows

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// maxDepth bounds the nesting of collections in a WKB geometry.
const maxDepth = 32

var errShortWKB = errors.New("features: truncated WKB")

// Envelope returns the bounding box [minx, miny, maxx, maxy] of a WKB
// geometry, ignoring Z and M. ok is false for an empty geometry. It reads
// ISO WKB (Z, M, ZM as type+1000/2000/3000) and PostGIS EWKB (flag bits,
// optional SRID) in either byte order: points, line strings, polygons,
// their Multi* forms, geometry collections, and the curve and surface types
// (whose box is that of their control points).
func Envelope(wkb []byte) (box [4]float64, ok bool, err error) {
	e := envReader{b: wkb, box: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
	if err := e.geometry(0); err != nil {
		return [4]float64{}, false, err
	}
	if e.pos != len(wkb) {
		return [4]float64{}, false, fmt.Errorf("features: %d bytes after the WKB geometry", len(wkb)-e.pos)
	}
	if !e.any {
		return [4]float64{}, false, nil
	}
	return e.box, true, nil
}

type envReader struct {
	b   []byte
	pos int
	box [4]float64
	any bool
}

func (e *envReader) geometry(depth int) error {
	if depth > maxDepth {
		return errors.New("features: WKB nested too deeply")
	}
	if len(e.b)-e.pos < 5 {
		return errShortWKB
	}
	var bo binary.ByteOrder
	switch e.b[e.pos] {
	case 0:
		bo = binary.BigEndian
	case 1:
		bo = binary.LittleEndian
	default:
		return fmt.Errorf("features: bad WKB byte order %d", e.b[e.pos])
	}
	t := bo.Uint32(e.b[e.pos+1:])
	e.pos += 5
	dims := 2
	if t&0xE0000000 != 0 { // EWKB flags
		if t&0x80000000 != 0 {
			dims++
		}
		if t&0x40000000 != 0 {
			dims++
		}
		if t&0x20000000 != 0 { // SRID follows
			if len(e.b)-e.pos < 4 {
				return errShortWKB
			}
			e.pos += 4
		}
		t &= 0x0FFFFFFF
	}
	switch t / 1000 {
	case 0:
	case 1, 2:
		dims++
	case 3:
		dims += 2
	default:
		return fmt.Errorf("features: unknown WKB geometry type %d", t)
	}
	switch t % 1000 {
	case 1: // Point
		return e.points(bo, 1, dims)
	case 2, 8, 13: // LineString, CircularString, Curve
		n, err := e.count(bo, dims*8)
		if err != nil {
			return err
		}
		return e.points(bo, n, dims)
	case 3, 14, 17: // Polygon, Surface, Triangle
		rings, err := e.count(bo, 4)
		if err != nil {
			return err
		}
		for range rings {
			n, err := e.count(bo, dims*8)
			if err != nil {
				return err
			}
			if err := e.points(bo, n, dims); err != nil {
				return err
			}
		}
		return nil
	case 4, 5, 6, 7, 9, 10, 11, 12, 15, 16: // Multi*, collections, compound types
		n, err := e.count(bo, 5)
		if err != nil {
			return err
		}
		for range n {
			if err := e.geometry(depth + 1); err != nil {
				return err
			}
		}
		return nil
	default:
		return fmt.Errorf("features: unknown WKB geometry type %d", t)
	}
}

// count reads an element count and checks that many elements of at least
// minSize bytes can follow.
func (e *envReader) count(bo binary.ByteOrder, minSize int) (int, error) {
	if len(e.b)-e.pos < 4 {
		return 0, errShortWKB
	}
	n := int(bo.Uint32(e.b[e.pos:]))
	e.pos += 4
	if n > (len(e.b)-e.pos)/minSize {
		return 0, errShortWKB
	}
	return n, nil
}

// points reads n coordinates of dims values and extends the box with their
// x and y; NaN coordinates (the empty point) are skipped.
func (e *envReader) points(bo binary.ByteOrder, n, dims int) error {
	size := dims * 8
	if n > (len(e.b)-e.pos)/size {
		return errShortWKB
	}
	b := e.b[e.pos : e.pos+n*size]
	e.pos += n * size
	minx, miny, maxx, maxy := e.box[0], e.box[1], e.box[2], e.box[3]
	seen := false
	for i := 0; i < len(b); i += size {
		x := math.Float64frombits(bo.Uint64(b[i:]))
		y := math.Float64frombits(bo.Uint64(b[i+8:]))
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		seen = true
		minx, maxx = min(minx, x), max(maxx, x)
		miny, maxy = min(miny, y), max(maxy, y)
	}
	if seen {
		e.box = [4]float64{minx, miny, maxx, maxy}
		e.any = true
	}
	return nil
}
