package vectortiles

import (
	"context"
	"math"
	"sort"
	"strings"
	"testing"

	"fmt"

	"entgo.io/ent/dialect"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"

	"github.com/geopub/geopub/internal/store/storetest"
)

// The in-process encoder and PostGIS's ST_AsMVT make the same tiles: the
// same features (by fid) with the same properties, points at the same
// grid positions, polygons with bounds within a grid unit (simplification
// and clipping differ in details). Both read the same rows on PostgreSQL.
func TestInProcessMatchesPostGIS(t *testing.T) {
	st := storetest.Open(t, dialect.Postgres, storetest.Options{})
	fillRows(t, st, 3000)
	s := New(st, Config{}, nil)
	ctx := context.Background()
	if !s.usePostGIS(ctx) {
		t.Fatal("PostGIS is needed (scripts/ensure-deps.sh installs it)")
	}
	for _, limit := range []int{MaxFeatures, 700} {
		featureLimit = limit
		t.Cleanup(func() { featureLimit = MaxFeatures })
		compareTiles(t, s, limit)
	}
}

func compareTiles(t *testing.T, s *Service, limit int) {
	ctx := context.Background()
	st := s.store
	for _, z := range []int{0, 8, 11, 13, 15} {
		n := float64(int(1) << z)
		tile := Tile{Z: z, X: int(mercatorX(174.85, n)), Y: int(mercatorY(-41.22, n))}
		own, err := encodeInProcess(ctx, st, benchVersion, "l", tile, nil)
		if err != nil {
			t.Fatal(err)
		}
		pg, err := s.encodePostGIS(ctx, benchVersion, "l", tile, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := decodeFeatures(t, own), decodeFeatures(t, pg)
		if len(a) != len(b) || len(a) > limit {
			t.Fatalf("tile %s: %d features in process, %d from PostGIS, limit %d", tile, len(a), len(b), limit)
		}
		if z == 8 && len(a) < FeatureLimit(8)/2 {
			t.Fatalf("tile %s: only %d features", tile, len(a))
		}
		for i := range a {
			if a[i].id != b[i].id || a[i].props != b[i].props {
				t.Fatalf("tile %s feature %d: %+v vs %+v", tile, i, a[i], b[i])
			}
			for k := range a[i].bound {
				if math.Abs(a[i].bound[k]-b[i].bound[k]) > 1 {
					t.Fatalf("tile %s feature %d: bounds %v vs %v", tile, a[i].id, a[i].bound, b[i].bound)
				}
			}
		}
	}
}

type flat struct {
	id    uint64
	props string
	bound [4]float64
}

func decodeFeatures(t *testing.T, body []byte) []flat {
	t.Helper()
	if len(body) == 0 {
		return nil
	}
	ls, err := mvt.Unmarshal(body)
	if err != nil || len(ls) != 1 {
		t.Fatalf("decoding: %v", err)
	}
	var out []flat
	for _, f := range ls[0].Features {
		bd := f.Geometry.Bound()
		out = append(out, flat{id: uint64(f.ID.(float64)), props: propsText(f.Properties), bound: boundOf(bd)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func boundOf(b orb.Bound) [4]float64 { return [4]float64{b.Min[0], b.Min[1], b.Max[0], b.Max[1]} }

func propsText(p map[string]any) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for _, k := range keys {
		s += k + "=" + toText(p[k]) + ";"
	}
	return s
}

func toText(v any) string { return fmt.Sprintf("%T:%v", v, v) }

// The PostGIS tile query finds its features through the box index (cell
// keys: its version's partition's copy of feature_version_id_cell_…), not
// by reading the version's rows.
func TestPostGISTileUsesBoxIndex(t *testing.T) {
	st := storetest.Open(t, dialect.Postgres, storetest.Options{})
	fillRows(t, st, 20000)
	s := New(st, Config{}, nil)
	ctx := context.Background()
	if !s.usePostGIS(ctx) {
		t.Fatal("PostGIS is needed (scripts/ensure-deps.sh installs it)")
	}
	if _, err := st.DB.ExecContext(ctx, "ANALYZE features"); err != nil {
		t.Fatal(err)
	}
	n := float64(int(1) << 15)
	query, args := postgisTileQuery(benchVersion, "l", Tile{Z: 15, X: int(mercatorX(174.85, n)), Y: int(mercatorY(-41.22, n))}, nil)
	rows, err := st.DB.QueryContext(ctx, "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if !strings.Contains(plan.String(), "_version_id_cell_minx_maxx_miny_maxy") {
		t.Fatalf("the tile query does not use the box index:\n%s", plan.String())
	}
}
