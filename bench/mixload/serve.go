package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/users"
)

// The points spread over New Zealand's box; the readers' boxes are 1° × 1°
// within it, as in the reproduction.
const west, south, width, height = 166.0, -47.5, 12.0, 13.0

// serverInfo is what the server child tells the parent.
type serverInfo struct {
	Addr   string `json:"addr"`
	Writer string `json:"writer"` // the API key the comment writers use
	Layer  int    `json:"layer"`
	Seed   string `json:"seed"`
}

// serve is the child: a Geopub server as `geopub serve` configures it by
// default (request budget, heavy-read slots, one job worker) with a
// published public layer of n points, serving on loopback until ctx ends.
func serve(ctx context.Context, n int, dataDir, dbURL string) error {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(ctx, server.Config{DataDir: dataDir, DatabaseURL: dbURL, Logger: logger,
		Jobs: jobs.Config{Workers: 1, Logger: logger}})
	if err != nil {
		return err
	}
	defer srv.Close()
	start := time.Now()
	u, err := users.Create(ctx, srv.Store.Client, users.New{Email: "mixload@example.com", Password: "mixload password 123", FirstName: "Mix", Country: "NZ"})
	if err != nil {
		return err
	}
	_, key, err := srv.Resolver.Auth.CreateToken(ctx, u, auth.TokenSpec{Name: "mixload", Scope: strings.Join(auth.KnownScopes, " ")})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(24, 24))
	layerID, err := benchkit.SeedPoints(ctx, srv, u.ID, "Mixed load points", n, func() (float64, float64) {
		return west + rng.Float64()*width, south + rng.Float64()*height
	})
	if err != nil {
		return err
	}
	seeded := time.Since(start)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = onewrite.Serve(hs, ln) }()
	if err := json.NewEncoder(os.Stdout).Encode(serverInfo{Addr: ln.Addr().String(), Writer: key, Layer: layerID,
		Seed: seeded.Round(time.Millisecond).String()}); err != nil {
		return err
	}
	<-ctx.Done()
	return hs.Close()
}
