package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	_ "net/http/pprof" // QUERYBENCH_PPROF=addr serves profiles of the server child
	"os"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/features"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/users"
	"github.com/geopub/geopub/queryapi"
)

// The generated points: uniform over a box the size of New Zealand.
const (
	west, south = 166.0, -47.5
	width       = 12.0
	height      = 13.0
)

// point returns the i-th generated point; the PostGIS side makes the same.
func point(rng *rand.Rand) (float64, float64) {
	return west + rng.Float64()*width, south + rng.Float64()*height
}

// serverInfo is what the server child tells the parent.
type serverInfo struct {
	Addr    string `json:"addr"`
	Key     string `json:"key"`
	Layer   int    `json:"layer"`
	SeedSec string `json:"seed"`
}

// serve is the child: a Geopub server on a fresh SQLite data directory
// (or dbURL) with a published layer of n points, serving on loopback.
func serve(ctx context.Context, n int, dataDir, dbURL string) error {
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
	layerID, err := seed(ctx, srv, u.ID, n)
	if err != nil {
		return err
	}
	seedTook := time.Since(start)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	if os.Getenv("QUERYBENCH_PPROF") != "" {
		go func() { _ = http.ListenAndServe(os.Getenv("QUERYBENCH_PPROF"), nil) }()
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(serverInfo{Addr: ln.Addr().String(), Key: key, Layer: layerID, SeedSec: seedTook.Round(time.Millisecond).String()}); err != nil {
		return err
	}
	<-ctx.Done()
	return hs.Close()
}

// seed stores a published layer of n generated points, as an import and a
// publish would leave it.
func seed(ctx context.Context, srv *server.Server, userID, n int) (int, error) {
	var layerID int
	err := srv.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(layer.TypeLayer).SetName("Bench points").SetUserID(userID).
			SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName("Bench points").SetCreatedBy(userID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetCrs("EPSG:4326").SetGeometryType("point").SetGeometryField("GEOMETRY").
			SetFields([]schematype.Field{{Name: "GEOMETRY", Type: "geometry"}, {Name: "name", Type: "string"}, {Name: "value", Type: "integer"}}).
			SetDatasourceIds([]int{}).SetFeatureCount(int64(n)).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		w, err := features.NewWriter(ctx, srv.Store, tx, v.ID)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(42, 42))
		wkb := make([]byte, 21)
		wkb[0] = 1
		binary.LittleEndian.PutUint32(wkb[1:], 1)
		for i := range n {
			x, y := point(rng)
			binary.LittleEndian.PutUint64(wkb[5:], math.Float64bits(x))
			binary.LittleEndian.PutUint64(wkb[13:], math.Float64bits(y))
			g := append([]byte(nil), wkb...)
			if err := w.Write(features.Row{FID: int64(i + 1), Geom: g, Attrs: map[string]any{"name": fmt.Sprintf("point %d", i+1), "value": int64(i % 1000)}}); err != nil {
				return err
			}
		}
		if _, err := w.Close(); err != nil {
			return err
		}
		if err := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		layerID = l.ID
		return access.GrantDefaults(ctx, c, access.KindLayer, l.ID, userID)
	})
	return layerID, err
}
