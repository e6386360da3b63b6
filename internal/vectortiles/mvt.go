package vectortiles

import (
	"bytes"
	"encoding/binary"
	"math"
	"sync"
	"unsafe"

	"github.com/paulmach/orb"
)

// layerWriter encodes one MVT layer (vector_tile.proto, version 2) by
// hand, feature by feature, with keys and values shared by index in
// order of first use. Its output is byte for byte what orb's mvt.Marshal
// writes for the same features (TestLayerWriterMatchesOrb), without the
// maps, interfaces and messages of one allocated per value.
type layerWriter struct {
	features []byte // each: 0x12, length, Feature message
	keys     []byte // each: 0x1a, length, key
	values   []byte // each: 0x22, length, Value message
	nKeys    uint32
	nValues  uint32
	keyIdx   map[string]uint32
	strIdx   map[string]uint32
	intIdx   map[int64]uint32
	dblIdx   map[float64]uint32
	boolIdx  [2]int64 // index+1 of false and true, 0 when unused

	tags  []uint32
	geom  []uint32
	pairs []pair
	msg   []byte
	prevX int32
	prevY int32
}

// Value kinds of a pair, as MVT writes them.
const (
	kindString = iota
	kindInt    // sint_value
	kindDouble // double_value
	kindBool   // bool_value
)

// pair is one attribute: a key and its value.
type pair struct {
	key  []byte
	kind int
	s    []byte
	i    int64
	f    float64
}

func newLayerWriter() *layerWriter {
	return &layerWriter{keyIdx: map[string]uint32{}, strIdx: map[string]uint32{}, intIdx: map[int64]uint32{},
		dblIdx: map[float64]uint32{}}
}

// writers are layer writers for reuse: their maps and buffers keep their
// room from tile to tile.
var writers = sync.Pool{New: func() any { return newLayerWriter() }}

// getLayerWriter is an empty layer writer; putLayerWriter gives it back
// once its bytes are taken.
func getLayerWriter() *layerWriter { return writers.Get().(*layerWriter) }

func putLayerWriter(w *layerWriter) {
	w.features, w.keys, w.values = w.features[:0], w.keys[:0], w.values[:0]
	w.nKeys, w.nValues, w.boolIdx = 0, 0, [2]int64{}
	clear(w.keyIdx)
	clear(w.strIdx)
	clear(w.intIdx)
	clear(w.dblIdx)
	// Pairs point into the tile's attributes: none stays behind.
	clear(w.pairs)
	w.pairs = w.pairs[:0]
	writers.Put(w)
}

// transient is b as a string without a copy, for map keys that live no
// longer than the bytes they point into (a tile's attributes, read-only
// while the tile is made; the maps are cleared before reuse).
func transient(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// MVT geometry commands.
const (
	cmdMoveTo    = 1
	cmdLineTo    = 2
	cmdClosePath = 7
)

// add writes a feature: its id (left out when negative), its attributes
// (keys in byte order, as orb sorts them) and its geometry, one of the
// point, line and polygon types fit returns.
func (w *layerWriter) add(fid int64, g orb.Geometry, pairs []pair) {
	sortPairs(pairs)
	w.tags = w.tags[:0]
	for _, p := range pairs {
		w.tags = append(w.tags, w.key(p.key), w.value(p))
	}
	typ := w.encodeGeometry(g)

	m := w.msg[:0]
	if fid >= 0 {
		m = append(m, 0x08)
		m = binary.AppendUvarint(m, uint64(fid))
	}
	if len(w.tags) > 0 {
		m = appendPacked(m, 0x12, w.tags)
	}
	m = append(m, 0x18, typ)
	if len(w.geom) > 0 {
		m = appendPacked(m, 0x22, w.geom)
	}
	w.msg = m
	w.features = append(w.features, 0x12)
	w.features = binary.AppendUvarint(w.features, uint64(len(m)))
	w.features = append(w.features, m...)
}

// bytes is the Tile message holding the layer, nil without features.
func (w *layerWriter) bytes(name string) []byte {
	if len(w.features) == 0 {
		return nil
	}
	// The Layer message: name, features, keys, values, extent, version.
	n := 1 + uvarintLen(uint64(len(name))) + len(name) + len(w.features) + len(w.keys) + len(w.values) +
		1 + uvarintLen(Extent) + 2
	out := make([]byte, 0, 1+uvarintLen(uint64(n))+n)
	out = append(out, 0x1a)
	out = binary.AppendUvarint(out, uint64(n))
	out = append(out, 0x0a)
	out = binary.AppendUvarint(out, uint64(len(name)))
	out = append(out, name...)
	out = append(out, w.features...)
	out = append(out, w.keys...)
	out = append(out, w.values...)
	out = append(out, 0x28)
	out = binary.AppendUvarint(out, Extent)
	return append(out, 0x78, 2)
}

// key returns the index of k, added on first use.
func (w *layerWriter) key(k []byte) uint32 {
	if i, ok := w.keyIdx[string(k)]; ok {
		return i
	}
	i := w.nKeys
	w.nKeys++
	w.keyIdx[transient(k)] = i
	w.keys = append(w.keys, 0x1a)
	w.keys = binary.AppendUvarint(w.keys, uint64(len(k)))
	w.keys = append(w.keys, k...)
	return i
}

// value returns the index of p's value, added on first use.
func (w *layerWriter) value(p pair) uint32 {
	switch p.kind {
	case kindString:
		if i, ok := w.strIdx[string(p.s)]; ok {
			return i
		}
		w.strIdx[transient(p.s)] = w.nValues
		m := append(w.msg[:0], 0x0a)
		m = binary.AppendUvarint(m, uint64(len(p.s)))
		w.msg = append(m, p.s...)
	case kindInt:
		if i, ok := w.intIdx[p.i]; ok {
			return i
		}
		w.intIdx[p.i] = w.nValues
		w.msg = binary.AppendUvarint(append(w.msg[:0], 0x30), uint64(p.i<<1)^uint64(p.i>>63))
	case kindDouble:
		if i, ok := w.dblIdx[p.f]; ok {
			return i
		}
		w.dblIdx[p.f] = w.nValues
		w.msg = binary.LittleEndian.AppendUint64(append(w.msg[:0], 0x19), math.Float64bits(p.f))
	case kindBool:
		if w.boolIdx[p.i] > 0 {
			return uint32(w.boolIdx[p.i] - 1)
		}
		w.boolIdx[p.i] = int64(w.nValues) + 1
		w.msg = append(w.msg[:0], 0x38, byte(p.i))
	}
	w.values = append(w.values, 0x22)
	w.values = binary.AppendUvarint(w.values, uint64(len(w.msg)))
	w.values = append(w.values, w.msg...)
	i := w.nValues
	w.nValues++
	return i
}

// encodeGeometry writes g's commands into w.geom and returns its MVT
// type (1 point, 2 line, 3 polygon).
func (w *layerWriter) encodeGeometry(g orb.Geometry) byte {
	w.geom, w.prevX, w.prevY = w.geom[:0], 0, 0
	switch g := g.(type) {
	case orb.Point:
		w.command(cmdMoveTo, []orb.Point{g})
		return 1
	case orb.MultiPoint:
		w.command(cmdMoveTo, g)
		return 1
	case orb.LineString:
		w.line(g)
		return 2
	case orb.MultiLineString:
		for _, l := range g {
			w.line(l)
		}
		return 2
	case orb.Polygon:
		w.polygon(g)
		return 3
	case orb.MultiPolygon:
		for _, p := range g {
			w.polygon(p)
		}
		return 3
	}
	return 0 // fit returns no other type
}

func (w *layerWriter) line(l orb.LineString) {
	w.command(cmdMoveTo, l[:1])
	w.command(cmdLineTo, l[1:])
}

func (w *layerWriter) polygon(p orb.Polygon) {
	for _, r := range p {
		w.command(cmdMoveTo, r[:1])
		if r.Closed() {
			w.command(cmdLineTo, r[1:len(r)-1])
		} else {
			w.command(cmdLineTo, r[1:])
		}
		w.geom = append(w.geom, 1<<3|cmdClosePath)
	}
}

// command writes a command for points, each as a zigzag delta from the
// previous.
func (w *layerWriter) command(cmd uint32, pts []orb.Point) {
	w.geom = append(w.geom, uint32(len(pts))<<3|cmd)
	for _, p := range pts {
		x, y := int32(p[0]), int32(p[1])
		dx, dy := x-w.prevX, y-w.prevY
		w.prevX, w.prevY = x, y
		w.geom = append(w.geom, uint32((dx<<1)^(dx>>31)), uint32((dy<<1)^(dy>>31)))
	}
}

// appendPacked appends a packed repeated uint32 field.
func appendPacked(b []byte, tag byte, vs []uint32) []byte {
	n := 0
	for _, v := range vs {
		n += uvarintLen(uint64(v))
	}
	b = append(b, tag)
	b = binary.AppendUvarint(b, uint64(n))
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// sortPairs orders pairs by key bytes (an insertion sort: features have
// few attributes).
func sortPairs(ps []pair) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && bytes.Compare(ps[j].key, ps[j-1].key) < 0; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}
