package vectortiles

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/tilecache"
)

// benchVersion is the version id the benchmark's features are stored
// under (no layer rows are needed to make tiles).
const benchVersion = 1

// fillRows stores n points and n/10 small squares over a box about 40 km
// across around Wellington.
func fillRows(b testing.TB, st *store.Store, n int) {
	rng := rand.New(rand.NewPCG(8, 12))
	rows := make([]featurerows.Row, n+n/10)
	for i := range rows {
		x, y := 174.6+rng.Float64()*0.5, -41.4+rng.Float64()*0.35
		var g geom.T = geom.NewPointFlat(geom.XY, []float64{x, y})
		if i >= n {
			d := 0.002 + rng.Float64()*0.003
			g = geom.NewPolygonFlat(geom.XY, []float64{x, y, x + d, y, x + d, y + d, x, y + d, x, y}, []int{10})
		}
		rows[i] = featurerows.Row{FID: int64(i + 1), Geom: wkbOf(b, g), Attrs: map[string]any{"n": i, "name": "feature"}}
	}
	storeRows(b, st, rows)
}

// wkbOf is g as little-endian WKB, nil for nil.
func wkbOf(tb testing.TB, g geom.T) []byte {
	if g == nil {
		return nil
	}
	b, err := wkb.Marshal(g, binary.LittleEndian)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// storeRows stores rows as version benchVersion.
func storeRows(tb testing.TB, st *store.Store, rows []featurerows.Row) {
	tb.Helper()
	err := st.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := featurerows.NewWriter(ctx, st, tx, benchVersion)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		_, err = w.Close()
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkTiles makes tiles at zooms 8, 12 and 14 over a generated layer,
// cold (an empty cache each time), from the in-memory index, and cached, on each backend (PostgreSQL
// when GEOPUB_TEST_DATABASE_URL is set). The full-size benchmark is
// bench/tiles.
func BenchmarkTiles(b *testing.B) {
	for _, d := range storetest.Backends {
		b.Run(d, func(b *testing.B) {
			st := storetest.Open(b, d, storetest.Options{})
			fillRows(b, st, 20000)
			s := New(st, Config{}, nil)
			l := &Layer{ID: 1, VersionID: benchVersion}
			ctx := context.Background()
			for _, z := range []int{8, 12, 14} {
				n := float64(int(1) << z)
				t := Tile{Z: z, X: int(mercatorX(174.85, n)), Y: int(mercatorY(-41.22, n))}
				b.Run("cold/z"+itoa(z), func(b *testing.B) {
					for b.Loop() {
						s.cache = tilecache.New[cacheKey](DefaultConfig.CacheBytes)
						if _, err := s.layerTile(ctx, l, t); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run("indexed/z"+itoa(z), func(b *testing.B) {
					ix, err := featureindex.Read(ctx, st, benchVersion, []string{"n", "name"})
					if err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						if _, err := encodeIndexed(ix, "l", t, nil); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run("cached/z"+itoa(z), func(b *testing.B) {
					if _, err := s.layerTile(ctx, l, t); err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						if _, err := s.layerTile(ctx, l, t); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }
