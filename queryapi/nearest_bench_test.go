package queryapi

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/geopub/geopub/queryapi/geo"
	"github.com/geopub/geopub/queryapi/index"
)

// BenchmarkNearest measures the index search and distance work of one
// vector query (radius 1000 m, max_results 10) over 1,000,000 points
// spread over a New Zealand-sized box, without HTTP. It reports the
// index's memory as index-MiB.
func BenchmarkNearest(b *testing.B) {
	rng := rand.New(rand.NewPCG(42, 42))
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	var bld index.Builder
	attrs := []byte(`{"name":"point","value":1}`)
	for i := range 1_000_000 {
		x, y := 166+rng.Float64()*12, -47.5+rng.Float64()*13
		bld.Add(int64(i+1), [4]float64{x, y, x, y}, true, nil, attrs)
	}
	ix := bld.Build()
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	qs := make([]geo.Point, 1024)
	for i := range qs {
		qs[i] = geo.Point{Lon: 166 + rng.Float64()*12, Lat: -47.5 + rng.Float64()*13}
	}
	b.ResetTimer()
	found := 0
	for i := 0; b.Loop(); i++ {
		found += len(Nearest(ix, qs[i%len(qs)], 1000, 10))
	}
	b.ReportMetric(float64(found)/float64(b.N), "hits/op")
	b.ReportMetric(float64(ms1.HeapAlloc-ms0.HeapAlloc)/(1<<20), "index-MiB")
}
