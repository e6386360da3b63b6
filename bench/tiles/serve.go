package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/ratelimit"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/users"
	"github.com/geopub/geopub/internal/vectortiles"
)

// layerFields are the schema of both layers: benchkit's attributes.
var layerFields = []schematype.Field{
	{Name: "GEOMETRY", Type: "geometry"}, {Name: "id", Type: "integer"}, {Name: "name", Type: "string"},
	{Name: "category", Type: "string"}, {Name: "value", Type: "double"}, {Name: "surveyed", Type: "date"},
	{Name: "active", Type: "boolean"},
}

// serverInfo is what a server child tells the parent on its first line
// of output.
type serverInfo struct {
	Addr     string `json:"addr"`
	Points   int    `json:"points"`   // layer ids, when the child seeded
	Polygons int    `json:"polygons"` //
	Seed     string `json:"seed"`     // how long seeding took
	Indexes  string `json:"indexes"`  // how long building the feature indexes took, and their size
}

// serve is the server child: Geopub's server (the handler cmd/geopub
// serves) over the store at dbURL or in dataDir, with a tile cache of
// cacheBytes, on a loopback port. With seed, it first stores the points
// and polygons layers, published, public, every service enabled. With
// index, it builds the layers' feature indexes before it answers, as
// `geopub serve` does at start, and tiles are made from them; without,
// every tile is made from the store.
// limits, when set, are its rate limits (--rate-limits syntax).
func serve(ctx context.Context, dataDir, dbURL string, cacheBytes int64, seed, index bool, nPoints, nPolygons int, limits string) error {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	rl, err := ratelimit.Parse(limits)
	if err != nil {
		return err
	}
	srv, err := server.New(ctx, server.Config{DataDir: dataDir, DatabaseURL: dbURL, Logger: logger,
		Tiles:      vectortiles.Config{CacheBytes: cacheBytes, Fresh: vectortiles.DefaultConfig.Fresh, FromStore: !index},
		Jobs:       jobs.Config{Workers: 1, Logger: logger},
		RateLimits: rl})
	if err != nil {
		return err
	}
	defer srv.Close()
	var info serverInfo
	if seed {
		start := time.Now()
		if info.Points, info.Polygons, err = seedLayers(ctx, srv, nPoints, nPolygons); err != nil {
			return err
		}
		info.Seed = time.Since(start).Round(time.Millisecond).String()
	}
	if index {
		start := time.Now()
		if err := srv.Query.Warm(ctx); err != nil {
			return err
		}
		info.Indexes = fmt.Sprintf("%s, %d MiB", time.Since(start).Round(time.Millisecond), srv.Query.MemoryUsed()>>20)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = onewrite.Serve(hs, ln) }()
	info.Addr = ln.Addr().String()
	if err := json.NewEncoder(os.Stdout).Encode(info); err != nil {
		return err
	}
	<-ctx.Done()
	return hs.Close()
}

// seedLayers stores the two layers as an import and a publish would
// leave them, with the default grants (anyone may view and download).
func seedLayers(ctx context.Context, srv *server.Server, nPoints, nPolygons int) (points, polygons int, err error) {
	u, err := users.Create(ctx, srv.Store.Client, users.New{Email: "bench@example.com", Password: "bench password 123", FirstName: "Bench", Country: "NZ"})
	if err != nil {
		return 0, 0, err
	}
	g := benchkit.NewGenerator()
	if points, err = seedLayer(ctx, srv, u.ID, "Bench points", "point", nPoints, g.Points); err != nil {
		return 0, 0, err
	}
	polygons, err = seedLayer(ctx, srv, u.ID, "Bench polygons", "polygon", nPolygons, g.Polygons)
	return points, polygons, err
}

func seedLayer(ctx context.Context, srv *server.Server, userID int, name, geometryType string, n int,
	gen func(int, func(benchkit.Feature) error) error) (int, error) {
	var id int
	err := srv.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName(name).SetUserID(userID).
			SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(userID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetCrs("EPSG:4326").SetGeometryType(geometryType).SetGeometryField("GEOMETRY").
			SetFields(layerFields).SetDatasourceIds([]int{}).SetFeatureCount(int64(n)).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		w, err := featurerows.NewWriter(ctx, srv.Store, tx, v.ID)
		if err != nil {
			return err
		}
		if err := gen(n, func(f benchkit.Feature) error {
			return w.Write(featurerows.Row{FID: f.FID, Geom: f.WKB, Attrs: f.Attrs})
		}); err != nil {
			return err
		}
		if _, err := w.Close(); err != nil {
			return err
		}
		if err := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		id = l.ID
		return access.GrantDefaults(ctx, c, access.KindLayer, l.ID, userID)
	})
	return id, err
}
