package grids_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// storedGrid writes a 2000×2000 Float32 grid of 100 m cells in NZTM
// (EPSG:2193), each cell holding column + row, stores it as version 1's
// grid and returns a sampler over it with the grid's lon/lat extent.
func storedGrid(t testing.TB) (*grids.Sampler, [4]float64) {
	t.Helper()
	dir := t.TempDir()
	ingesttest.Grid(t, filepath.Join(dir, "src", "big.tif"), 2193, 2000, 2000, [6]float64{1700000, 100, 0, 5500000, 0, -100},
		[]ingesttest.GridBand{{Name: "height", Type: godal.Float32, Value: func(c, r int) float64 { return float64(c + r) }}})
	cog := filepath.Join(dir, "cog.tif")
	info, err := ingest.BuildGrid(context.Background(), filepath.Join(dir, "src"), []ingest.Datasource{{Path: "big.tif", DataType: ingest.TypeGrid}}, cog, ingest.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := blob.Open(context.Background(), "", filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close() })
	f, err := os.Open(cog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := bs.Put(context.Background(), grids.Key(1), f, grids.ContentType); err != nil {
		t.Fatal(err)
	}
	s := grids.NewSampler(bs, filepath.Join(dir, "cache"))
	t.Cleanup(s.Close)
	return s, info.Extent
}

// Concurrent callers each borrow their own GDAL handle: the answers stay
// right under load.
func TestSamplerConcurrent(t *testing.T) {
	s, ext := storedGrid(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 200 {
				lon := ext[0] + rng.Float64()*(ext[2]-ext[0])
				lat := ext[1] + rng.Float64()*(ext[3]-ext[1])
				smp, err := s.At(context.Background(), 1, lon, lat)
				if err != nil {
					t.Error(err)
					return
				}
				if smp.Inside && (smp.Values[0] == nil || *smp.Values[0] != float64(smp.Column+smp.Row)) {
					t.Errorf("cell %d,%d holds %v", smp.Column, smp.Row, smp.Values[0])
					return
				}
			}
		}()
	}
	wg.Wait()
	if _, err := s.At(context.Background(), 2, 174, -41); err == nil {
		t.Fatal("a version without a grid file answered")
	}
}

// BenchmarkSample measures one point sample of a 2000×2000 grid in another
// CRS than the query's, from random points (run in parallel).
func BenchmarkSample(b *testing.B) {
	s, ext := storedGrid(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
		for pb.Next() {
			lon := ext[0] + rng.Float64()*(ext[2]-ext[0])
			lat := ext[1] + rng.Float64()*(ext[3]-ext[1])
			if _, err := s.At(context.Background(), 1, lon, lat); err != nil {
				b.Fatal(err)
			}
		}
	})
}
