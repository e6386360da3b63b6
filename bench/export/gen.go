package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/features"
	"github.com/geopub/geopub/internal/store"
)

// The data: points and polygons spread over New Zealand (lon 166..179,
// lat -47..-34) with a few typed attributes, stored as the import job
// stores them (features.Writer: ISO WKB in EPSG:4326, attributes JSON).
const (
	pointsVersion   = 1
	polygonsVersion = 2
	minLon, maxLon  = 166.0, 179.0
	minLat, maxLat  = -47.0, -34.0
)

// benchFields are the attribute columns of both layers.
var benchFields = []exportfile.Field{
	{Name: "id", Type: "integer"}, {Name: "name", Type: "string"}, {Name: "category", Type: "string"},
	{Name: "value", Type: "double"}, {Name: "surveyed", Type: "date"}, {Name: "active", Type: "boolean"},
}

var categories = []string{"bridge", "culvert", "ford", "tunnel", "wharf", "Ōtaki ford"}

func attrs(rng *rand.Rand, i int) map[string]any {
	return map[string]any{
		"id":       int64(i + 1),
		"name":     fmt.Sprintf("Feature %d", i+1),
		"category": categories[i%len(categories)],
		"value":    math.Round(rng.Float64()*1e6) / 1e3,
		"surveyed": time.Date(2000+i%25, time.Month(1+i%12), 1+i%28, 0, 0, 0, 0, time.UTC),
		"active":   i%3 != 0,
	}
}

// pointWKB is an ISO WKB point.
func pointWKB(x, y float64) []byte {
	b := make([]byte, 21)
	b[0] = 1
	binary.LittleEndian.PutUint32(b[1:], 1)
	binary.LittleEndian.PutUint64(b[5:], math.Float64bits(x))
	binary.LittleEndian.PutUint64(b[13:], math.Float64bits(y))
	return b
}

// polygonWKB is an ISO WKB polygon: a 16-sided ring of radius r around
// (x, y), and a hole of 0.4 r when hole is set.
func polygonWKB(x, y, r float64, hole bool) []byte {
	const sides = 16
	rings := 1
	if hole {
		rings = 2
	}
	b := make([]byte, 0, 9+rings*(4+(sides+1)*16))
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint32(b, uint32(rings))
	for ring := range rings {
		rr, dir := r, 1.0
		if ring == 1 {
			rr, dir = r*0.4, -1
		}
		b = binary.LittleEndian.AppendUint32(b, sides+1)
		for k := 0; k <= sides; k++ {
			a := dir * 2 * math.Pi * float64(k%sides) / sides
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x+rr*math.Cos(a)))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(y+rr*math.Sin(a)*0.75))
		}
	}
	return b
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
		rng := rand.New(rand.NewPCG(1, 2))
		w, err := features.NewWriter(ctx, st, tx, pointsVersion)
		if err != nil {
			return err
		}
		for i := range n {
			x, y := minLon+rng.Float64()*(maxLon-minLon), minLat+rng.Float64()*(maxLat-minLat)
			if err := w.Write(features.Row{FID: int64(i + 1), Geom: pointWKB(x, y), Attrs: attrs(rng, i)}); err != nil {
				return err
			}
		}
		if _, err := w.Close(); err != nil {
			return err
		}
		w, err = features.NewWriter(ctx, st, tx, polygonsVersion)
		if err != nil {
			return err
		}
		for i := range m {
			r := 0.005 + rng.Float64()*0.05
			x := minLon + r + rng.Float64()*(maxLon-minLon-2*r)
			y := minLat + r + rng.Float64()*(maxLat-minLat-2*r)
			g := polygonWKB(x, y, r, i%5 == 0)
			if err := w.Write(features.Row{FID: int64(i + 1), Geom: g, Attrs: attrs(rng, i)}); err != nil {
				return err
			}
		}
		_, err = w.Close()
		return err
	})
}
