package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	_ "net/http/pprof" // QUERYBENCH_PPROF=addr serves profiles of the server child
	"os"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/ratelimit"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/users"
	"github.com/geopub/geopub/queryapi"
)

// area is the box the layer's points are spread over, uniformly; the
// query points cover the same box.
type area struct {
	west, south, width, height float64
}

// areas are the boxes -area names: nz spreads the points over a box the
// size of New Zealand (about 0.7 points per km², 2 within a query's 1000 m
// radius: max_results never binds); region over 2° × 2° around Auckland
// (about 26 per km², 80 within the radius: the nearest 10 of many, as in
// a city's address points).
var areas = map[string]area{
	"nz":     {west: 166.0, south: -47.5, width: 12.0, height: 13.0},
	"region": {west: 173.8, south: -37.9, width: 2.0, height: 2.0},
}

// point returns the next generated point of the layer; the PostGIS side
// loads the same.
func (a area) point(rng *rand.Rand) (float64, float64) {
	return a.west + rng.Float64()*a.width, a.south + rng.Float64()*a.height
}

// The query points are the first nQueries points of the R2 low-discrepancy
// sequence over the same box (spread evenly), in 32-bit fixed point: the
// arithmetic is exact in integers, so pgbench's script (postgis.go)
// computes exactly the same points.
const (
	nQueries = 10000
	r2a      = 3242174889 // 2³²/g, g the plastic number
	r2b      = 2447445414 // 2³²/g²
)

// queryPoint returns query point i (0 ≤ i < nQueries).
func (a area) queryPoint(i int) (float64, float64) {
	fx := float64(int64(i)*r2a%(1<<32)) / (1 << 32)
	fy := float64(int64(i)*r2b%(1<<32)) / (1 << 32)
	return a.west + a.width*fx, a.south + a.height*fy
}

// serverInfo is what the server child tells the parent.
type serverInfo struct {
	Addr  string `json:"addr"`
	Key   string `json:"key"`
	Layer int    `json:"layer"`
	// LimitedAddr serves the same store with the -rate-limits policies.
	LimitedAddr string `json:"limited_addr,omitempty"`
	SeedSec     string `json:"seed"`
}

// serve is the child: a Geopub server on a fresh SQLite data directory
// (or dbURL) with a published layer of n points, serving on loopback.
// With limits, a second server over the same store serves them on
// another address: the rate-limited target.
func serve(ctx context.Context, n int, dataDir, dbURL string, at area, limits string) error {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(ctx, server.Config{DataDir: dataDir, DatabaseURL: dbURL, Logger: logger,
		Query: queryapi.Config{MemoryBudget: 2 << 30, Fresh: time.Second},
		Jobs:  jobs.Config{Workers: 1, Logger: logger}})
	if err != nil {
		return err
	}
	start := time.Now()
	u, err := users.Create(ctx, srv.Store.Client, users.New{Email: "bench@example.com", Password: "bench password 123", FirstName: "Bench", Country: "NZ"})
	if err != nil {
		return err
	}
	_, key, err := srv.Resolver.Auth.CreateToken(ctx, u, auth.TokenSpec{Name: "bench", Scope: "query"})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(42, 42))
	layerID, err := benchkit.SeedPoints(ctx, srv, u.ID, "Bench points", n, func() (float64, float64) { return at.point(rng) })
	if err != nil {
		return err
	}
	seedTook := time.Since(start)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = onewrite.Serve(hs, ln) }()
	info := serverInfo{Addr: ln.Addr().String(), Key: key, Layer: layerID, SeedSec: seedTook.Round(time.Millisecond).String()}
	if limits != "" {
		addr, err := serveLimited(ctx, srv, limits, logger)
		if err != nil {
			return err
		}
		info.LimitedAddr = addr
	}
	if os.Getenv("QUERYBENCH_PPROF") != "" {
		go func() { _ = http.ListenAndServe(os.Getenv("QUERYBENCH_PPROF"), nil) }()
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(info); err != nil {
		return err
	}
	<-ctx.Done()
	return hs.Close()
}

// serveLimited starts a second server over srv's store with the rate
// limits of spec (sharing its counts every second, as in production) and
// returns its address.
func serveLimited(ctx context.Context, srv *server.Server, spec string, logger *slog.Logger) (string, error) {
	limits, err := ratelimit.Parse(spec)
	if err != nil {
		return "", err
	}
	lim, err := server.NewWithStore(ctx, server.Config{DataDir: srv.TempDir() + "-limited", Logger: logger,
		Query:      queryapi.Config{MemoryBudget: 2 << 30, Fresh: time.Second},
		Jobs:       jobs.Config{InsertOnly: true, Logger: logger},
		RateLimits: limits, SkipSearchRebuild: true}, srv.Store)
	if err != nil {
		return "", err
	}
	if err := lim.Start(ctx); err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	hs := &http.Server{Handler: lim.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = onewrite.Serve(hs, ln) }()
	return ln.Addr().String(), nil
}
