package main

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/users"
	"github.com/geopub/geopub/queryapi"
)

// BenchmarkRouterVector is the server's own cost of one point query
// (20,000 points, the nz area, with an API key), through the whole
// router in process: no sockets, no client, so that its ns/op and
// allocs/op compare commits where the loopback load of `bench/query`
// is noisy (bench/query/RESULTS.md). Run it with -cpu 1.
func BenchmarkRouterVector(b *testing.B) {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(ctx, server.Config{DataDir: b.TempDir(), Logger: logger,
		Query: queryapi.Config{MemoryBudget: 2 << 30, Fresh: time.Second},
		Jobs:  jobs.Config{Workers: 1, Logger: logger}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	u, err := users.Create(ctx, srv.Store.Client, users.New{Email: "bench@example.com", Password: "bench password 123", FirstName: "Bench", Country: "NZ"})
	if err != nil {
		b.Fatal(err)
	}
	_, key, err := srv.Resolver.Auth.CreateToken(ctx, u, auth.TokenSpec{Name: "bench", Scope: "query"})
	if err != nil {
		b.Fatal(err)
	}
	at := areas["nz"]
	rng := rand.New(rand.NewPCG(42, 42))
	layerID, err := benchkit.SeedPoints(ctx, srv, u.ID, "Bench points", 20000, func() (float64, float64) { return at.point(rng) })
	if err != nil {
		b.Fatal(err)
	}
	benchkit.ServeLoop(b, srv.Handler(), vectorPaths(serverInfo{Key: key, Layer: layerID}, at, 1000, 10), nil)
}
