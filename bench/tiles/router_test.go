package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/ratelimit"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/vectortiles"
)

// BenchmarkRouterTile is the server's own cost of one cached vector tile
// (20,000 points, a 10 × 10 block of zoom-8 tiles over them, anonymous),
// through the whole router in process: no sockets, no client, so that
// its ns/op and allocs/op compare commits where the loopback load of
// `bench/tiles` is noisy (bench/tiles/RESULTS.md). Run it with -cpu 1;
// limits=on counts every tile under a policy that refuses none.
func BenchmarkRouterTile(b *testing.B) {
	for _, limits := range []string{"", "tiles=1000000000/1h"} {
		name := "limits=off"
		if limits != "" {
			name = "limits=on"
		}
		b.Run(name, func(b *testing.B) { benchRouterTile(b, limits) })
	}
}

func benchRouterTile(b *testing.B, limits string) {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	rl, err := ratelimit.Parse(limits)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(ctx, server.Config{DataDir: b.TempDir(), Logger: logger,
		Tiles:      vectortiles.Config{CacheBytes: 256 << 20, Fresh: vectortiles.DefaultConfig.Fresh},
		Jobs:       jobs.Config{Workers: 1, Logger: logger},
		RateLimits: rl})
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
	// Gzipped, as browsers and MapLibre ask (and bench/tiles by default).
	benchkit.ServeLoop(b, srv.Handler(), paths, http.Header{"Accept-Encoding": {"gzip"}})
}
