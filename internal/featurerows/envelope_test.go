package featurerows

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestEnvelope(t *testing.T) {
	nan := math.NaN()
	pointZ := wkbCoords(wkbHead(nil, 1001), 1, 2, 99)
	pointZM := wkbCoords(wkbHead(nil, 3001), -1, -2, 99, 98)
	lineM := wkbCoords(binary.LittleEndian.AppendUint32(wkbHead(nil, 2002), 2), 0, 0, 500, 3, 4, -500)
	// EWKB big-endian point Z with SRID 4326.
	ewkb := []byte{0, 0xA0, 0, 0, 1, 0, 0, 0x10, 0xE6}
	for _, c := range []float64{5, 6, 7} {
		ewkb = binary.BigEndian.AppendUint64(ewkb, math.Float64bits(c))
	}
	cases := []struct {
		name string
		wkb  []byte
		box  [4]float64
		ok   bool
	}{
		{"point", wkbPoint(174.7, -36.8), [4]float64{174.7, -36.8, 174.7, -36.8}, true},
		{"empty point", wkbPoint(nan, nan), [4]float64{}, false},
		{"point z", pointZ, [4]float64{1, 2, 1, 2}, true},
		{"point zm", pointZM, [4]float64{-1, -2, -1, -2}, true},
		{"line m", lineM, [4]float64{0, 0, 3, 4}, true},
		{"line", wkbLine(0, 0, 10, -5, 3, 8), [4]float64{0, -5, 10, 8}, true},
		{"empty line", wkbLine(), [4]float64{}, false},
		{"polygon", wkbPolygon([]float64{0, 0, 4, 0, 4, 3, 0, 0}, []float64{1, 1, 2, 1, 2, 2, 1, 1}), [4]float64{0, 0, 4, 3}, true},
		{"multipoint", wkbCollection(4, wkbPoint(1, 1), wkbPoint(-3, 7)), [4]float64{-3, 1, 1, 7}, true},
		{"multipolygon", wkbCollection(6, wkbPolygon([]float64{0, 0, 1, 0, 1, 1, 0, 0}), wkbPolygon([]float64{5, 5, 6, 5, 6, 9, 5, 5})), [4]float64{0, 0, 6, 9}, true},
		{"collection", wkbCollection(7, wkbPoint(nan, nan), wkbCollection(5, wkbLine(2, 2, 3, 3)), wkbPoint(-1, 10)), [4]float64{-1, 2, 3, 10}, true},
		{"empty collection", wkbCollection(7), [4]float64{}, false},
		{"ewkb srid z big-endian", ewkb, [4]float64{5, 6, 5, 6}, true},
	}
	for _, c := range cases {
		box, ok, err := Envelope(c.wkb)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if ok != c.ok || box != c.box {
			t.Errorf("%s: got %v %v, want %v %v", c.name, box, ok, c.box, c.ok)
		}
	}
	bad := map[string][]byte{
		"empty":          {},
		"byte order":     {2, 1, 0, 0, 0},
		"truncated":      wkbPoint(1, 2)[:15],
		"trailing bytes": append(wkbPoint(1, 2), 0),
		"unknown type":   wkbHead(nil, 99),
		"huge count":     binary.LittleEndian.AppendUint32(wkbHead(nil, 2), 1<<31),
		"bad part":       wkbCollection(7, []byte{1, 1}),
	}
	for name, b := range bad {
		if _, _, err := Envelope(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func BenchmarkEnvelope(b *testing.B) {
	pt := wkbPoint(174.7, -36.8)
	poly := wkbPolygon([]float64{0, 0, 4, 0, 4, 3, 3, 5, 1, 7, 0, 0})
	b.Run("point", func(b *testing.B) {
		for b.Loop() {
			Envelope(pt)
		}
	})
	b.Run("polygon", func(b *testing.B) {
		for b.Loop() {
			Envelope(poly)
		}
	})
}
