package main

import (
	"context"
	"database/sql"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// The data: benchkit's generated points and polygons, stored as the
// import job stores them (featurerows.Writer: ISO WKB in EPSG:4326,
// attributes JSON).
const (
	pointsVersion   = 1
	polygonsVersion = 2
	minLon, maxLon  = benchkit.MinLon, benchkit.MaxLon
	minLat, maxLat  = benchkit.MinLat, benchkit.MaxLat
)

// benchFields are the attribute columns of both layers.
var benchFields = []exportfile.Field{
	{Name: "id", Type: "integer"}, {Name: "name", Type: "string"}, {Name: "category", Type: "string"},
	{Name: "value", Type: "double"}, {Name: "surveyed", Type: "date"}, {Name: "active", Type: "boolean"},
}

// loadChild opens (and migrates) the store and loads the data.
func loadChild(ctx context.Context, dbURL, dataDir string, n, m int) error {
	st, err := store.OpenAndMigrate(ctx, store.Config{DatabaseURL: dbURL, DataDir: dataDir})
	if err != nil {
		return err
	}
	defer st.Close()
	return load(ctx, st, n, m)
}

// load writes n points (version 1) and m polygons (version 2) into st.
func load(ctx context.Context, st *store.Store, n, m int) error {
	return st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		g := benchkit.NewGenerator()
		for _, l := range []struct {
			version int
			gen     func(int, func(benchkit.Feature) error) error
			count   int
		}{{pointsVersion, g.Points, n}, {polygonsVersion, g.Polygons, m}} {
			w, err := featurerows.NewWriter(ctx, st, tx, l.version)
			if err != nil {
				return err
			}
			err = l.gen(l.count, func(f benchkit.Feature) error {
				return w.Write(featurerows.Row{FID: f.FID, Geom: f.WKB, Attrs: f.Attrs})
			})
			if err != nil {
				return err
			}
			if _, err := w.Close(); err != nil {
				return err
			}
		}
		return nil
	})
}
