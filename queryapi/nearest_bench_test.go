package queryapi

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/geodesic"
)

// BenchmarkNearest measures the index search and distance work of one
// vector query (radius 1000 m, max_results 10) over 1,000,000 points,
// without HTTP: spread over a New Zealand-sized box (nz: about 2 points
// within the radius) and over 2° × 2° (region: about 80, of which the
// nearest 10 are wanted). It reports the index's memory as index-MiB.
func BenchmarkNearest(b *testing.B) {
	for _, area := range []struct {
		name              string
		west, south, w, h float64
	}{{"nz", 166, -47.5, 12, 13}, {"region", 173.8, -37.9, 2, 2}} {
		b.Run(area.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(42, 42))
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			var bld featureindex.Builder
			attrs := []byte(`{"name":"point","value":1}`)
			for i := range 1_000_000 {
				x, y := area.west+rng.Float64()*area.w, area.south+rng.Float64()*area.h
				bld.Add(int64(i+1), [4]float64{x, y, x, y}, true, nil, attrs)
			}
			ix := bld.Build()
			runtime.GC()
			runtime.ReadMemStats(&ms1)
			qs := make([]geodesic.Point, 1024)
			for i := range qs {
				qs[i] = geodesic.Point{Lon: area.west + rng.Float64()*area.w, Lat: area.south + rng.Float64()*area.h}
			}
			b.ResetTimer()
			found := 0
			for i := 0; b.Loop(); i++ {
				found += len(Nearest(ix, qs[i%len(qs)], 1000, 10))
			}
			b.ReportMetric(float64(found)/float64(b.N), "hits/op")
			b.ReportMetric(float64(ms1.HeapAlloc-ms0.HeapAlloc)/(1<<20), "index-MiB")
		})
	}
}
