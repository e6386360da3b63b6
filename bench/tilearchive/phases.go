package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/tilearchive"
	"github.com/geopub/geopub/internal/users"
	"github.com/geopub/geopub/internal/vectortiles"
)

// cacheBytes is the tile cache of the servers the phases start (-cache-bytes).
var cacheBytes = vectortiles.DefaultConfig.CacheBytes

// open starts Geopub's server over the SQLite store in dataDir, as
// `geopub serve` would (with a tile cache of cacheBytes), logging nothing.
func open(ctx context.Context, dataDir string) (*server.Server, error) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	tiles := vectortiles.DefaultConfig
	tiles.CacheBytes = cacheBytes
	return server.New(ctx, server.Config{DataDir: dataDir, Logger: logger,
		Tiles: tiles, Jobs: jobs.Config{Workers: 1, Logger: logger}})
}

// load stores n points spread uniformly over New Zealand (benchkit's
// extent, fixed seed) as a published public layer through featurerows'
// bulk writer, and returns its id.
func load(ctx context.Context, dataDir string, n int) (int, error) {
	srv, err := open(ctx, dataDir)
	if err != nil {
		return 0, err
	}
	defer srv.Close()
	u, err := users.Create(ctx, srv.Store.Client, users.New{Email: "bench@example.com", Password: "bench password 123", FirstName: "Bench", Country: "NZ"})
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	return benchkit.SeedPoints(ctx, srv, u.ID, "Bench points", n, func() (float64, float64) {
		return benchkit.MinLon + rng.Float64()*(benchkit.MaxLon-benchkit.MinLon), benchkit.MinLat + rng.Float64()*(benchkit.MaxLat-benchkit.MinLat)
	})
}

// warm opens the server and builds the layers' feature indexes, as
// `geopub serve` does at start (not timed).
func warm(ctx context.Context, dataDir string) (*server.Server, time.Duration, error) {
	srv, err := open(ctx, dataDir)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	if err := srv.Query.Warm(ctx); err != nil {
		srv.Close()
		return nil, 0, err
	}
	return srv, time.Since(start), nil
}

// buildResult is what a build reports.
type buildResult struct {
	Stats  tilearchive.Stats `json:"stats"`
	Wall   time.Duration     `json:"wall"`
	Output int64             `json:"output"`
	mem
}

// mem is a phase's memory: the process's peak RSS before the timed part
// (server and feature indexes) and at its end, the live Go heap's peak
// during it, the feature indexes' and the tile cache's bytes at the end.
type mem struct {
	Warm      time.Duration `json:"warm"`
	HWMBefore int64         `json:"hwm_before"`
	HWM       int64         `json:"hwm"`
	HeapPeak  uint64        `json:"heap_peak"`
	Index     int64         `json:"index"`
	Cache     int64         `json:"cache"`
}

// measure samples the heap until the returned function is called, which
// fills in the rest of m.
func (m *mem) measure(srv *server.Server) func() {
	m.HWMBefore = benchkit.VmHWM()
	stop, peak := make(chan struct{}), make(chan uint64)
	go benchkit.SamplePeakHeap(stop, peak)
	return func() {
		close(stop)
		m.HeapPeak = <-peak
		m.HWM = benchkit.VmHWM()
		m.Index = srv.Query.MemoryUsed()
		m.Cache = srv.Tiles.CacheBytes()
	}
}

// build writes layer id's PMTiles archive, zooms minZ..maxZ over the
// layer's bounds, from the vector tile service (LayerMVT, as the
// archive job does), to out, and lists its non-empty tiles ("z/x/y") in
// list for the fetch.
func build(ctx context.Context, dataDir string, id, minZ, maxZ, workers int, out, list string) (buildResult, error) {
	var r buildResult
	srv, warmed, err := warm(ctx, dataDir)
	if err != nil {
		return r, err
	}
	defer srv.Close()
	r.Warm = warmed
	v, err := srv.Tiles.Viewer(ctx, auth.Principal{})
	if err != nil {
		return r, err
	}
	l, err := srv.Tiles.UsableLayer(ctx, v, id, vectortiles.ServiceMVT, vectortiles.ServiceTiles)
	if err != nil {
		return r, err
	}
	box, ok, err := srv.Tiles.Bounds(ctx, l)
	if err != nil || !ok {
		return r, fmt.Errorf("layer %d's bounds: %v", id, err)
	}
	tj, err := srv.Tiles.LayerTileJSON(ctx, v, id, "")
	if err != nil {
		return r, err
	}
	lf, err := os.Create(list)
	if err != nil {
		return r, err
	}
	defer lf.Close()
	lw := bufio.NewWriter(lf)
	var mu sync.Mutex
	src := tilearchive.SourceFunc(func(ctx context.Context, z, x, y int) ([]byte, error) {
		b, err := srv.Tiles.LayerMVT(ctx, l, vectortiles.Tile{Z: z, X: x, Y: y})
		if err == nil && len(b) > 0 {
			mu.Lock()
			fmt.Fprintf(lw, "%d/%d/%d\n", z, x, y)
			mu.Unlock()
		}
		return b, err
	})
	f, err := os.Create(out)
	if err != nil {
		return r, err
	}
	defer f.Close()
	done := r.measure(srv)
	start := time.Now()
	r.Stats, err = tilearchive.WritePMTiles(ctx, f, "", src, tilearchive.Options{
		MinZoom: minZ, MaxZoom: maxZ, Bounds: box, Type: tilearchive.TypeMVT, Workers: workers,
		Name: l.Title, Metadata: map[string]any{"vector_layers": tj.VectorLayers}})
	if err != nil {
		return r, err
	}
	if err := f.Sync(); err != nil {
		return r, err
	}
	r.Wall = time.Since(start)
	done()
	r.Output = r.Stats.Bytes
	return r, lw.Flush()
}

// fetchResult is what a fetch reports.
type fetchResult struct {
	Tiles int64         `json:"tiles"`
	Bytes int64         `json:"bytes"`
	Wall  time.Duration `json:"wall"`
	mem
}

// fetch starts a fresh server (cold tile cache, warm feature indexes)
// on an httptest listener and GETs every tile of list from layer id's
// tile service with conc clients.
func fetch(ctx context.Context, dataDir string, id int, list string, conc int) (fetchResult, error) {
	var r fetchResult
	srv, warmed, err := warm(ctx, dataDir)
	if err != nil {
		return r, err
	}
	defer srv.Close()
	r.Warm = warmed
	b, err := os.ReadFile(list)
	if err != nil {
		return r, err
	}
	tiles := strings.Fields(string(b))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, DisableCompression: true}}
	var next, bytes atomic.Int64
	errs := make(chan error, conc)
	done := r.measure(srv)
	start := time.Now()
	for range conc {
		go func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(len(tiles)) {
					errs <- nil
					return
				}
				url := fmt.Sprintf("%s/services/tiles/v1/layer=%d/%s.pbf", hs.URL, id, tiles[i])
				resp, err := client.Get(url)
				if err != nil {
					errs <- err
					return
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || n == 0 {
					errs <- fmt.Errorf("GET %s: status %d, %d bytes, %v", url, resp.StatusCode, n, err)
					return
				}
				bytes.Add(n)
			}
		}()
	}
	for range conc {
		if err := <-errs; err != nil {
			return r, err
		}
	}
	r.Wall = time.Since(start)
	done()
	r.Tiles = int64(len(tiles))
	r.Bytes = bytes.Load()
	return r, nil
}

// defaultWorkers is the build's tile makers: GOMAXPROCS, as the writer's
// default.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
