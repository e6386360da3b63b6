package featurerows

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// testRow is the i-th row of a mixed set: points, lines, polygons, rows
// without geometry, unicode and nested attributes.
func testRow(i int) Row {
	f := float64(i)
	r := Row{FID: int64(i + 1)}
	switch i % 5 {
	case 0:
		r.Geom = wkbPoint(170+f/1e4, -40+f/1e4)
	case 1:
		r.Geom = wkbLine(f/100, 1, f/100+2, -3, f/100+1, 5)
	case 2:
		r.Geom = wkbPolygon([]float64{-f / 100, -1, 1, -1, 1, f / 100, -f / 100, -1})
	case 3:
		r.Geom = nil
	case 4:
		r.Geom = wkbCollection(6, wkbPolygon([]float64{0, 0, 1, 0, 1, 1, 0, 0}), wkbPolygon([]float64{2, 2, 3, 2, 3, f, 2, 2}))
	}
	r.Attrs = map[string]any{
		"n":     int64(i),
		"big":   int64(math.MaxInt64 - i),
		"x":     f + 0.25,
		"name":  fmt.Sprintf("Ōtautahi – 東京 🚀 \"q\" \\ %d\n\ttab", i),
		"ok":    i%2 == 0,
		"none":  nil,
		"when":  time.Date(2024, 3, 1, 12, 0, i%60, 0, time.UTC),
		"tiny":  1e-9 * f,
		"nest":  map[string]any{"a": []any{int64(1), "zwei", map[string]any{"ü": 2.5}}, "b": nil},
		"empty": "",
	}
	if i%7 == 0 {
		r.Attrs = nil
	}
	if i%11 == 0 {
		r.Attrs = map[string]any{}
	}
	return r
}

// wantRead is how Read returns r: times as RFC 3339 strings.
func wantRead(r Row) Row {
	if r.Attrs == nil {
		return r
	}
	m := make(map[string]any, len(r.Attrs))
	for k, v := range r.Attrs {
		if t, ok := v.(time.Time); ok {
			v = t.Format(time.RFC3339Nano)
		}
		m[k] = v
	}
	r.Attrs = m
	return r
}

func writeRows(t testing.TB, st *store.Store, versionID, n int, row func(int) Row) {
	t.Helper()
	ctx := context.Background()
	err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := NewWriter(ctx, st, tx, versionID)
		if err != nil {
			return err
		}
		for i := range n {
			if err := w.Write(row(i)); err != nil {
				return err
			}
		}
		got, err := w.Close()
		if err == nil && got != int64(n) {
			err = fmt.Errorf("Close counted %d rows, want %d", got, n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, st *store.Store, versionID int) []Row {
	t.Helper()
	var rows []Row
	if err := Read(context.Background(), st, versionID, func(r Row) error {
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

func checkRows(t *testing.T, st *store.Store, versionID, n int, row func(int) Row) {
	t.Helper()
	got := readAll(t, st, versionID)
	if len(got) != n {
		t.Fatalf("read %d rows, want %d", len(got), n)
	}
	for i := range n {
		want := wantRead(row(i))
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("row %d:\n got %#v\nwant %#v", i, got[i], want)
		}
	}
	c, err := Count(context.Background(), st, versionID)
	if err != nil || c != int64(n) {
		t.Fatalf("Count = %d, %v; want %d", c, err, n)
	}
}

func TestWriteRead(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		const n = 10_000
		writeRows(t, st, 7, n, testRow)
		checkRows(t, st, 7, n, testRow)

		// The bbox columns agree with Envelope, and are null without geometry.
		rows, err := st.DB.QueryContext(ctx, q(st, "SELECT fid, minx, miny, maxx, maxy FROM features WHERE version_id = ? ORDER BY fid"), 7)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		all := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for i := 0; rows.Next(); i++ {
			var fid int64
			var b [4]sql.NullFloat64
			if err := rows.Scan(&fid, &b[0], &b[1], &b[2], &b[3]); err != nil {
				t.Fatal(err)
			}
			r := testRow(i)
			if fid != r.FID {
				t.Fatalf("row %d: fid %d, want %d", i, fid, r.FID)
			}
			if r.Geom == nil {
				if b[0].Valid || b[1].Valid || b[2].Valid || b[3].Valid {
					t.Fatalf("fid %d: bbox %v without geometry", fid, b)
				}
				continue
			}
			want, _, _ := Envelope(r.Geom)
			for k := range b {
				if !b[k].Valid || b[k].Float64 != want[k] {
					t.Fatalf("fid %d: bbox %v, want %v", fid, b, want)
				}
			}
			all = [4]float64{min(all[0], want[0]), min(all[1], want[1]), max(all[2], want[2]), max(all[3], want[3])}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		ext, ok, err := Extent(ctx, st, 7)
		if err != nil || !ok || ext != all {
			t.Fatalf("Extent = %v %v %v, want %v", ext, ok, err, all)
		}
		if _, ok, err := Extent(ctx, st, 8); ok || err != nil {
			t.Fatalf("Extent of an empty version: ok %v, err %v", ok, err)
		}
		// A spatial lookup through the bbox columns.
		var hits int
		if err := st.DB.QueryRowContext(ctx, q(st, "SELECT count(*) FROM features WHERE version_id = ? AND minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?"),
			7, 170.5, 170.5, -39.5, -39.5).Scan(&hits); err != nil || hits == 0 {
			t.Fatalf("bbox lookup: %d hits, %v", hits, err)
		}
	})
}

func TestRollbackLeavesNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		boom := errors.New("boom")
		err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			w, err := NewWriter(ctx, st, tx, 3)
			if err != nil {
				return err
			}
			for i := range 3000 {
				if err := w.Write(testRow(i)); err != nil {
					return err
				}
			}
			if _, err := w.Close(); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx: %v", err)
		}
		if n, err := Count(ctx, st, 3); err != nil || n != 0 {
			t.Fatalf("after rollback: %d rows, %v", n, err)
		}
	})
}

func TestDeleteVersion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		writeRows(t, st, 1, 1200, testRow)
		writeRows(t, st, 2, 800, testRow)
		// Restarting an import: delete and rewrite in one transaction.
		err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			if err := DeleteVersion(ctx, st, tx, 1); err != nil {
				return err
			}
			w, err := NewWriter(ctx, st, tx, 1)
			if err != nil {
				return err
			}
			for i := range 10 {
				if err := w.Write(testRow(i)); err != nil {
					return err
				}
			}
			_, err = w.Close()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		checkRows(t, st, 1, 10, testRow)
		checkRows(t, st, 2, 800, testRow)
		if err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return DeleteVersion(ctx, st, tx, 2)
		}); err != nil {
			t.Fatal(err)
		}
		checkRows(t, st, 2, 0, testRow)
		checkRows(t, st, 1, 10, testRow)
	})
}

func TestBatchBoundaries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		defer func(s, r, b int) { sqliteBatchRows, pgBatchRows, pgBatchBytes = s, r, b }(sqliteBatchRows, pgBatchRows, pgBatchBytes)
		version := 100
		for _, size := range []int{500, 64} {
			sqliteBatchRows, pgBatchRows = size, size
			for _, n := range []int{0, 1, size - 1, size, size + 1, 2*size - 1, 2 * size, 2*size + 1} {
				version++
				writeRows(t, st, version, n, testRow)
				checkRows(t, st, version, n, testRow)
			}
		}
		// PostgreSQL also flushes by size.
		pgBatchRows, pgBatchBytes = 1<<30, 4096
		version++
		writeRows(t, st, version, 1000, testRow)
		checkRows(t, st, version, 1000, testRow)
	})
}

func TestWriteErrors(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			w, err := NewWriter(ctx, st, tx, 5)
			if err != nil {
				return err
			}
			if err := w.Write(Row{FID: 1, Geom: []byte{1, 2, 3}}); err == nil {
				t.Error("bad WKB accepted")
			}
			if err := w.Write(Row{FID: 2, Geom: []byte{}}); err != nil {
				t.Errorf("empty WKB: %v", err)
			}
			n, err := w.Close()
			if n != 1 || err != nil {
				t.Errorf("Close = %d, %v", n, err)
			}
			if err := w.Write(testRow(0)); err == nil {
				t.Error("write after Close accepted")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkRows(t, st, 5, 1, func(int) Row { return Row{FID: 2} })
		if st.Dialect == "postgres" {
			tx, err := st.DB.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := NewWriter(ctx, st, tx, 5); err == nil {
				t.Error("NewWriter accepted a transaction not from InTx")
			}
		}
	})
}
