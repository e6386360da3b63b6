package benchkit

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// The generated data: points and polygons spread over New Zealand (lon
// 166..179, lat -47..-34) with the attributes id, name, category, value,
// surveyed (a date) and active, the same in every run (fixed seed).
const (
	MinLon, MaxLon = 166.0, 179.0
	MinLat, MaxLat = -47.0, -34.0
)

var categories = []string{"bridge", "culvert", "ford", "tunnel", "wharf", "Ōtaki ford"}

// attrs are the attributes of feature i; value draws from rng.
func attrs(rng *rand.Rand, i int) map[string]any {
	return map[string]any{
		"id":       int64(i + 1),
		"name":     fmt.Sprintf("Feature %d", i+1),
		"category": categories[i%len(categories)],
		"value":    math.Round(rng.Float64()*1e6) / 1e3,
		"surveyed": time.Date(2000+i%25, time.Month(1+i%12), 1+i%28, 0, 0, 0, 0, time.UTC),
		"active":   i%3 != 0,
	}
}

// Feature is one generated feature: fid (from 1), ISO WKB in EPSG:4326
// and attributes.
type Feature struct {
	FID   int64
	WKB   []byte
	Attrs map[string]any
}

// Generator yields the features of the points layer and then of the
// polygons layer from one random stream, as bench/export first loaded
// them: a run that wants the polygons generates (and skips) the points
// first, so both layers are the same whatever is asked for.
type Generator struct {
	rng *rand.Rand
}

// NewGenerator starts the stream.
func NewGenerator() *Generator { return &Generator{rng: rand.New(rand.NewPCG(1, 2))} }

// Points calls fn with n points spread uniformly over the extent.
func (g *Generator) Points(n int, fn func(Feature) error) error {
	for i := range n {
		x, y := MinLon+g.rng.Float64()*(MaxLon-MinLon), MinLat+g.rng.Float64()*(MaxLat-MinLat)
		if err := fn(Feature{FID: int64(i + 1), WKB: PointWKB(x, y), Attrs: attrs(g.rng, i)}); err != nil {
			return err
		}
	}
	return nil
}

// Polygons calls fn with m 16-sided polygons of radius 0.005° to 0.055°
// inside the extent, every fifth with a hole.
func (g *Generator) Polygons(m int, fn func(Feature) error) error {
	for i := range m {
		r := 0.005 + g.rng.Float64()*0.05
		x := MinLon + r + g.rng.Float64()*(MaxLon-MinLon-2*r)
		y := MinLat + r + g.rng.Float64()*(MaxLat-MinLat-2*r)
		if err := fn(Feature{FID: int64(i + 1), WKB: PolygonWKB(x, y, r, i%5 == 0), Attrs: attrs(g.rng, i)}); err != nil {
			return err
		}
	}
	return nil
}

// PointWKB is an ISO WKB point.
func PointWKB(x, y float64) []byte {
	b := make([]byte, 21)
	b[0] = 1
	binary.LittleEndian.PutUint32(b[1:], 1)
	binary.LittleEndian.PutUint64(b[5:], math.Float64bits(x))
	binary.LittleEndian.PutUint64(b[13:], math.Float64bits(y))
	return b
}

// PolygonWKB is an ISO WKB polygon: a 16-sided ring of radius r around
// (x, y), and a hole of 0.4 r when hole is set.
func PolygonWKB(x, y, r float64, hole bool) []byte {
	const sides = 16
	rings := 1
	if hole {
		rings = 2
	}
	b := make([]byte, 0, 9+rings*(4+(sides+1)*16))
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint32(b, uint32(rings))
	for ring := range rings {
		rr, dir := r, 1.0
		if ring == 1 {
			rr, dir = r*0.4, -1
		}
		b = binary.LittleEndian.AppendUint32(b, sides+1)
		for k := 0; k <= sides; k++ {
			a := dir * 2 * math.Pi * float64(k%sides) / sides
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x+rr*math.Cos(a)))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(y+rr*math.Sin(a)*0.75))
		}
	}
	return b
}
