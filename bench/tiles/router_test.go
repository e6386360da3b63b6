package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/vectortiles"
)

// BenchmarkRouterTile is the server's own cost of one cached vector tile
// (20,000 points, a 10 × 10 block of zoom-8 tiles over them, anonymous),
// through the whole router in process: no sockets, no client, so that
// its ns/op and allocs/op compare commits where the loopback load of
// `bench/tiles` is noisy (bench/tiles/RESULTS.md). Run it with -cpu 1.
func BenchmarkRouterTile(b *testing.B) {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(ctx, server.Config{DataDir: b.TempDir(), Logger: logger,
		Tiles: vectortiles.Config{CacheBytes: 256 << 20, Fresh: vectortiles.DefaultConfig.Fresh},
		Jobs:  jobs.Config{Workers: 1, Logger: logger}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	points, _, err := seedLayers(ctx, srv, 20000, 100)
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Query.Warm(ctx); err != nil {
		b.Fatal(err)
	}
	// benchkit's extent (166°..179°E, 47°..34°S) at zoom 8.
	var paths []string
	for x := range 10 {
		for y := range 10 {
			paths = append(paths, fmt.Sprintf("/services/tiles/v1/layer=%d/8/%d/%d.pbf", points, 246+x, 155+y))
		}
	}
	benchkit.ServeLoop(b, srv.Handler(), paths)
}
