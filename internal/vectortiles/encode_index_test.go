package vectortiles

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// variedFields are the fields fillVaried's features have.
var variedFields = []string{"n", "name", "note", "ratio", "open", "tags"}

// fillVaried stores, as version benchVersion, every kind of geometry a
// layer may hold around Wellington (2D and 3D points, multipoints, lines,
// polygons with holes, multipolygons, collections), points beyond Web
// Mercator's latitudes, a polygon larger than a tile, a feature without
// geometry, and attributes with nulls, missing names, escapes, nesting,
// floats and booleans.
func fillVaried(t testing.TB, st *store.Store) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 9))
	pt := func() (float64, float64) { return 174.6 + rng.Float64()*0.5, -41.4 + rng.Float64()*0.35 }
	var gs []geom.T
	for i := range 3000 {
		x, y := pt()
		d := 0.001 + rng.Float64()*0.01
		switch {
		case i%29 == 0:
			gs = append(gs, geom.NewMultiPointFlat(geom.XY, []float64{x, y, x + d, y + d, x - d, y}))
		case i%23 == 0:
			c := geom.NewGeometryCollection()
			_ = c.Push(geom.NewPointFlat(geom.XY, []float64{x, y}),
				geom.NewLineStringFlat(geom.XY, []float64{x, y, x + d, y + d}))
			gs = append(gs, c)
		case i%19 == 0:
			gs = append(gs, geom.NewMultiPolygonFlat(geom.XY, []float64{
				x, y, x + d, y, x + d, y + d, x, y,
				x + 2*d, y, x + 3*d, y, x + 3*d, y + d, x + 2*d, y,
			}, [][]int{{8}, {16}}))
		case i%17 == 0:
			q := d / 4
			gs = append(gs, geom.NewPolygonFlat(geom.XY, []float64{
				x, y, x + d, y, x + d, y + d, x, y + d, x, y,
				x + q, y + q, x + q, y + 3*q, x + 3*q, y + 3*q, x + 3*q, y + q, x + q, y + q,
			}, []int{10, 20}))
		case i%13 == 0:
			flat := []float64{x, y}
			for range 20 {
				x, y = x+(rng.Float64()-0.5)*d, y+(rng.Float64()-0.5)*d
				flat = append(flat, x, y)
			}
			gs = append(gs, geom.NewLineStringFlat(geom.XY, flat))
		case i%7 == 0:
			gs = append(gs, geom.NewPointFlat(geom.XYZ, []float64{x, y, 40}))
		default:
			gs = append(gs, geom.NewPointFlat(geom.XY, []float64{x, y}))
		}
	}
	gs = append(gs,
		geom.NewPointFlat(geom.XY, []float64{174.8, 86}),
		geom.NewPointFlat(geom.XY, []float64{174.8, -89.5}),
		geom.NewPolygonFlat(geom.XY, []float64{174.5, -41.5, 175.2, -41.5, 175.2, -41.0, 174.5, -41.0, 174.5, -41.5}, []int{10}),
		nil)
	rows := make([]featurerows.Row, len(gs))
	for i, g := range gs {
		attrs := map[string]any{"n": int64(i), "ratio": float64(i) / 7, "open": i%2 == 0}
		if i%3 != 0 {
			attrs["name"] = "feature «" + string(rune('a'+i%26)) + "» \"quoted\""
		}
		if i%5 == 0 {
			attrs["note"] = nil
		}
		if i%11 == 0 {
			attrs["tags"] = []any{"x", int64(i)}
		}
		rows[i] = featurerows.Row{FID: int64(3*len(gs) - 2*i), Geom: wkbOf(t, g), Attrs: attrs}
	}
	storeRows(t, st, rows)
}

// Tiles made from the in-memory index are byte for byte the tiles made
// from the store: the same features in the same (fid) order, the same
// geometries, attributes and thinning, at every zoom, on both stores.
func TestIndexedTilesMatchTheStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		fillVaried(t, st)
		ctx := context.Background()
		ix, err := featureindex.Read(ctx, st, benchVersion, variedFields)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Len() != 3003 {
			t.Fatalf("index of %d features, want 3,003 (the one without geometry left out)", ix.Len())
		}
		for _, limit := range []int{MaxFeatures, 150} {
			featureLimit = limit
			t.Cleanup(func() { featureLimit = MaxFeatures })
			nonEmpty := 0
			for z := 0; z <= 17; z++ {
				n := float64(int(1) << z)
				cx, cy := int(mercatorX(174.85, n)), int(mercatorY(-41.22, n))
				for dx := -1; dx <= 1; dx++ {
					for dy := -1; dy <= 1; dy++ {
						tile := Tile{Z: z, X: cx + dx, Y: cy + dy}
						if tile.X < 0 || tile.Y < 0 || tile.X >= int(n) || tile.Y >= int(n) {
							continue
						}
						want, err := encodeInProcess(ctx, st, benchVersion, "l", tile, nil)
						if err != nil {
							t.Fatal(err)
						}
						got, err := encodeIndexed(ix, "l", tile, nil)
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, want) {
							t.Fatalf("limit %d, tile %s: %d bytes from the index, %d from the store", limit, tile, len(got), len(want))
						}
						if len(want) > 0 {
							nonEmpty++
						}
					}
				}
			}
			if nonEmpty < 60 {
				t.Fatalf("only %d non-empty tiles compared", nonEmpty)
			}
		}
	})
}
