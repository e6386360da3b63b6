package featurerows

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// boxRow is the i-th row of a random set over New Zealand: points with
// full-precision coordinates, rectangles, and every tenth row without a
// geometry.
func boxRow(seed uint64) func(int) Row {
	return func(i int) Row {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		x, y := 166+r.Float64()*12, -47+r.Float64()*13
		row := Row{FID: int64(i + 1), Attrs: map[string]any{"i": int64(i)}}
		switch {
		case i%10 == 9:
		case i%3 == 0:
			w, h := r.Float64()*0.5, r.Float64()*0.5
			row.Geom = wkbPolygon([]float64{x, y, x + w, y, x + w, y + h, x, y + h, x, y})
		default:
			row.Geom = wkbPoint(x, y)
		}
		return row
	}
}

// storedBox is a row's id and stored box.
type storedBox struct {
	id  int64
	box Box
}

// storedBoxes reads a version's rows that have a box.
func storedBoxes(t *testing.T, st *store.Store, versionID int) []storedBox {
	t.Helper()
	rows, err := st.DB.Query(q(st, "SELECT id, minx, miny, maxx, maxy FROM features WHERE version_id = ? AND minx IS NOT NULL ORDER BY id"), versionID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []storedBox
	for rows.Next() {
		var b storedBox
		if err := rows.Scan(&b.id, &b.box[0], &b.box[1], &b.box[2], &b.box[3]); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// idsWhere returns the ids of the rows a WHERE term keeps, sorted.
func idsWhere(t *testing.T, st *store.Store, where string, args []any) []int64 {
	t.Helper()
	return int64s(t, st, "SELECT id FROM features WHERE "+where+" ORDER BY id", args)
}

// int64s runs query (with ? placeholders) and returns its one integer
// column.
func int64s(t *testing.T, st *store.Store, query string, args []any) []int64 {
	t.Helper()
	rows, err := st.DB.Query(q(st, query), args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// queryBoxes are random boxes over the data, tiny to large, some with
// edges exactly on stored coordinates (where 32-bit rounding would show),
// and a degenerate one equal to a point.
func queryBoxes(stored []storedBox, n int) []Box {
	r := rand.New(rand.NewPCG(7, 11))
	var out []Box
	for i := range n {
		x, y := 166+r.Float64()*12, -47+r.Float64()*13
		size := []float64{0.001, 0.05, 0.5, 4, 20}[i%5]
		b := Box{x, y, x + r.Float64()*size, y + r.Float64()*size}
		if i%4 == 1 && len(stored) > 0 {
			s := stored[r.IntN(len(stored))].box
			b = Box{s[2], s[3], s[2] + size, s[3] + size} // touching a corner
		}
		if i%4 == 3 && len(stored) > 0 {
			s := stored[r.IntN(len(stored))].box
			b = Box{s[0] - size, s[1] - size, s[0], s[1]}
		}
		out = append(out, b)
	}
	if len(stored) > 0 {
		s := stored[0].box
		out = append(out, Box{s[0], s[1], s[0], s[1]})
	}
	return out
}

// wantIDs is the answer of a scan in Go: ids whose stored box meets any of
// boxes.
func wantIDs(stored []storedBox, boxes ...Box) []int64 {
	var out []int64
	for _, s := range stored {
		for _, b := range boxes {
			if s.box[0] <= b[2] && s.box[2] >= b[0] && s.box[1] <= b[3] && s.box[3] >= b[1] {
				out = append(out, s.id)
				break
			}
		}
	}
	return out
}

// checkBoxes compares BoxWhere and BoxScanWhere with the scan in Go for
// random boxes, one at a time and in pairs.
func checkBoxes(t *testing.T, st *store.Store, versionID int) {
	t.Helper()
	stored := storedBoxes(t, st, versionID)
	boxes := queryBoxes(stored, 40)
	hits := 0
	for i, b := range boxes {
		sets := [][]Box{{b}}
		if i > 0 {
			sets = append(sets, []Box{boxes[i-1], b})
		}
		for _, set := range sets {
			want := wantIDs(stored, set...)
			hits += len(want)
			where, args := BoxWhere(st.Dialect, versionID, set...)
			if got := idsWhere(t, st, where, args); !slices.Equal(got, want) {
				t.Fatalf("version %d, boxes %v: BoxWhere found %d rows, a scan %d", versionID, set, len(got), len(want))
			}
			where, args = BoxScanWhere(versionID, set...)
			if got := idsWhere(t, st, where, args); !slices.Equal(got, want) {
				t.Fatalf("version %d, boxes %v: BoxScanWhere found %d rows, a scan %d", versionID, set, len(got), len(want))
			}
		}
	}
	if len(stored) > 0 && hits == 0 {
		t.Fatalf("version %d: no box found anything: the test proves nothing", versionID)
	}
	var unkeyed int
	if err := st.DB.QueryRow(q(st, `SELECT count(*) FROM features WHERE version_id = ? AND minx IS NOT NULL
		AND (cell IS NULL OR cell <> features_cell_key(minx, miny, maxx, maxy))`), versionID).Scan(&unkeyed); err != nil {
		t.Fatal(err)
	}
	if unkeyed != 0 {
		t.Fatalf("version %d: %d rows with a box lack their cell key", versionID, unkeyed)
	}
}

func TestBoxIndexMatchesScan(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		writeRows(t, st, 1, 3000, boxRow(1))
		writeRows(t, st, 2, 2000, boxRow(2))
		checkBoxes(t, st, 1)
		checkBoxes(t, st, 2)
		exec := func(query string, args ...any) {
			t.Helper()
			if err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, q(st, query), args...)
				return err
			}); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		// Rows deleted, boxes moved and cleared, rows added after.
		exec("DELETE FROM features WHERE version_id = ? AND fid % 7 = 0", 1)
		exec("UPDATE features SET minx = minx + 1, maxx = maxx + 1 WHERE version_id = ? AND fid % 5 = 0", 1)
		exec("UPDATE features SET minx = NULL, miny = NULL, maxx = NULL, maxy = NULL WHERE version_id = ? AND fid % 11 = 0", 1)
		writeRows(t, st, 1, 500, boxRow(3))
		checkBoxes(t, st, 1)
		// A version copied, then one deleted.
		if err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return CopyVersion(ctx, st, tx, 2, 3)
		}); err != nil {
			t.Fatal(err)
		}
		checkBoxes(t, st, 3)
		if err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return DeleteVersion(ctx, st, tx, 2)
		}); err != nil {
			t.Fatal(err)
		}
		checkBoxes(t, st, 2)
		checkBoxes(t, st, 3)
		if got := idsWhere(t, st, "version_id = ?", []any{2}); len(got) != 0 {
			t.Fatalf("version 2 keeps %d rows after DeleteVersion", len(got))
		}
	})
}

// TestBoxIndexIsUsed checks the plans: both stores read the cell key index
// for a small box of a version among others.
func TestBoxIndexIsUsed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		writeRows(t, st, 1, 20000, boxRow(4))
		writeRows(t, st, 2, 2000, boxRow(5))
		where, args := BoxWhere(st.Dialect, 1, Box{170, -40, 170.01, -39.99})
		query := "SELECT fid, geom, attrs FROM features WHERE " + where + " ORDER BY fid, id"
		want := "feature_version_id_cell"
		if st.Dialect == dialect.Postgres {
			if _, err := st.DB.Exec("ANALYZE features"); err != nil {
				t.Fatal(err)
			}
			// The version's partition's copy of the index, named after
			// the partition: features_v1_version_id_cell_…_idx.
			want = "version_id_cell_minx_maxx_miny_maxy"
		}
		plan := explain(t, st, query, args...)
		if !strings.Contains(plan, want) {
			t.Fatalf("the plan does not use %s:\n%s", want, plan)
		}
		t.Logf("plan:\n%s", plan)
	})
}

// BoxSelective lets the index lead for a box with few candidates and
// walks the fid index for one holding more than selectiveRows, over one
// box or two; the two plans keep the same rows in the same order.
func TestBoxSelective(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		writeRows(t, st, 1, 3000, boxRow(6))
		writeRows(t, st, 2, 3000, boxRow(7))
		selectiveRows = 500
		t.Cleanup(func() { selectiveRows = 10000 })
		small, all := Box{170, -40, 171, -39}, Box{160, -50, 180, -30}
		for _, c := range []struct {
			boxes []Box
			want  bool
		}{{[]Box{small}, true}, {[]Box{all}, false}, {[]Box{small, all}, false}, {nil, false}} {
			got, err := BoxSelective(ctx, st, 1, c.boxes...)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("BoxSelective(%v) = %v, want %v", c.boxes, got, c.want)
			}
			for _, limit := range []int{7, 100000} {
				a, b := fidsPage(t, st, withWhere(BoxScanWhere(1, c.boxes...)), limit), fidsPage(t, st, withWhere(BoxWhere(st.Dialect, 1, c.boxes...)), limit)
				if !slices.Equal(a, b) {
					t.Fatalf("boxes %v, limit %d: the fid walk gives %v…, the index %v…", c.boxes, limit, a[:min(len(a), 5)], b[:min(len(b), 5)])
				}
			}
		}
	})
}

// where is a WHERE term and its arguments.
type where struct {
	sql  string
	args []any
}

func withWhere(s string, args []any) where { return where{s, args} }

// fidsPage reads up to limit fids in (fid, id) order.
func fidsPage(t *testing.T, st *store.Store, w where, limit int) []int64 {
	t.Helper()
	return int64s(t, st, "SELECT fid FROM features WHERE "+w.sql+" ORDER BY fid, id LIMIT ?", append(w.args, limit))
}

// TestWritersKeyEveryRow: two Writers of one version in turn in one
// transaction, a plain INSERT after them and a failed, rolled-back Writer
// leave every row with a box keyed and found.
func TestWritersKeyEveryRow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		row := boxRow(4)
		err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			for part := range 2 {
				w, err := NewWriter(ctx, st, tx, 5)
				if err != nil {
					return err
				}
				for i := part * 1200; i < (part+1)*1200; i++ {
					if err := w.Write(row(i)); err != nil {
						return err
					}
				}
				if _, err := w.Close(); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO features (version_id, fid, minx, miny, maxx, maxy, cell) VALUES (5, 9999, 170, -40, 171, -39, features_cell_key(170, -40, 171, -39))")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		failed := errors.New("stop")
		err = st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			w, err := NewWriter(ctx, st, tx, 6)
			if err != nil {
				return err
			}
			for i := range 700 {
				if err := w.Write(row(i)); err != nil {
					return err
				}
			}
			return failed
		})
		if !errors.Is(err, failed) {
			t.Fatalf("the failed write's transaction ended with %v", err)
		}
		checkBoxes(t, st, 5)
		checkBoxes(t, st, 6)
		if got := idsWhere(t, st, "version_id = ?", []any{6}); len(got) != 0 {
			t.Fatalf("the rolled-back Writer left %d rows", len(got))
		}
	})
}
