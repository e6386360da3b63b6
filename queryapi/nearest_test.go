package queryapi

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/geodesic"
)

// Nearest measures only the candidates that can matter; it must answer
// exactly as measuring every feature would: the same features, distances
// and order (distance, then feature id), dense and sparse, with ties.
func TestNearestMatchesMeasuringEverything(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var bld featureindex.Builder
	type item struct {
		fid int64
		g   geom.T
	}
	var items []item
	add := func(g geom.T) {
		fid := int64(len(items) + 1)
		items = append(items, item{fid, g})
		b := g.Bounds()
		box := [4]float64{b.Min(0), b.Min(1), b.Max(0), b.Max(1)}
		if _, ok := g.(*geom.Point); ok {
			bld.Add(fid, box, true, nil, nil)
			return
		}
		raw, err := wkb.Marshal(g, wkb.NDR)
		if err != nil {
			t.Fatal(err)
		}
		bld.Add(fid, box, false, raw, nil)
	}
	// 20,000 points over 0.1° square near Wellington (hundreds within a
	// kilometre), a fifth of them on a coarse grid so that many share
	// distances exactly, and some lines and polygons among them.
	const west, south, span = 174.70, -41.35, 0.1
	for i := range 20000 {
		x, y := west+rng.Float64()*span, south+rng.Float64()*span
		if i%5 == 0 {
			x, y = west+float64(rng.IntN(40))*span/40, south+float64(rng.IntN(40))*span/40
		}
		switch {
		case i%50 == 1:
			add(geom.NewLineStringFlat(geom.XY, []float64{x, y, x + 0.003, y + 0.002, x + 0.001, y - 0.004}))
		case i%50 == 2:
			add(geom.NewPolygonFlat(geom.XY, []float64{x, y, x + 0.004, y, x + 0.004, y + 0.003, x, y + 0.003, x, y}, []int{10}))
		default:
			add(geom.NewPointFlat(geom.XY, []float64{x, y}))
		}
	}
	ix := bld.Build()
	byFID := map[int64]int{}
	for i := range ix.Len() {
		byFID[ix.FID(i)] = i
	}
	for q := range 500 {
		p := geodesic.Point{Lon: west + rng.Float64()*span, Lat: south + rng.Float64()*span}
		if q%7 == 0 {
			p = geodesic.Point{Lon: west + float64(rng.IntN(40))*span/40, Lat: south + float64(rng.IntN(40))*span/40}
		}
		radius := []float64{50, 300, 1000, 2500}[q%4]
		max := []int{1, 10, 100}[q%3]
		var want []Hit
		for _, it := range items {
			if d := geodesic.Distance(p, it.g); d <= radius {
				want = append(want, Hit{Item: byFID[it.fid], Distance: d})
			}
		}
		slices.SortFunc(want, func(a, b Hit) int {
			if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
				return c
			}
			return cmp.Compare(ix.FID(a.Item), ix.FID(b.Item))
		})
		want = want[:min(max, len(want))]
		got := Nearest(ix, p, radius, max)
		if !slices.Equal(got, want) {
			t.Fatalf("query %d at %v, radius %v, max %d:\n got  %v\n want %v", q, p, radius, max, got, want)
		}
	}
}
