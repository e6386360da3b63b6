package featurerows

import (
	"context"
	"database/sql"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// sums reads the stored sum of every row of a version by fid.
func sums(t *testing.T, st *store.Store, versionID int) map[int64]*int64 {
	t.Helper()
	rows, err := st.DB.QueryContext(context.Background(), q(st, "SELECT fid, sum FROM features WHERE version_id = ?"), versionID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]*int64{}
	for rows.Next() {
		var (
			fid int64
			sum *int64
		)
		if err := rows.Scan(&fid, &sum); err != nil {
			t.Fatal(err)
		}
		out[fid] = sum
	}
	return out
}

// The Writer stores every row's sum; a row stored without one gets the
// same sum from FillSums, though PostgreSQL gives its attributes back in
// another form (jsonb text); CopyVersion copies sums.
func TestSums(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		const n = 600
		writeRows(t, st, 3, n, testRow)
		written := sums(t, st, 3)
		distinct := map[int64]bool{}
		for i := range n {
			r := testRow(i)
			attrs, err := appendAttrs(nil, r.Attrs)
			if r.Attrs == nil {
				attrs = nil
			}
			if err != nil {
				t.Fatal(err)
			}
			s := written[r.FID]
			if s == nil || *s != Sum(r.Geom, attrs) {
				t.Fatalf("row %d: stored sum %v, want %d", i, s, Sum(r.Geom, attrs))
			}
			distinct[*s] = true
		}
		if len(distinct) < n-n/7-n/11 {
			t.Fatalf("%d distinct sums of %d rows", len(distinct), n)
		}

		if _, err := st.DB.ExecContext(ctx, q(st, "UPDATE features SET sum = NULL WHERE version_id = ? AND fid % 3 = 0"), 3); err != nil {
			t.Fatal(err)
		}
		got, err := FillSums(ctx, st, 3)
		if err != nil || got != n/3 {
			t.Fatalf("FillSums filled %d, %v; want %d", got, err, n/3)
		}
		for fid, s := range sums(t, st, 3) {
			if s == nil || *s != *written[fid] {
				t.Fatalf("fid %d: filled sum %v, want %d", fid, s, *written[fid])
			}
		}
		if got, err := FillSums(ctx, st, 3); err != nil || got != 0 {
			t.Fatalf("second FillSums filled %d, %v", got, err)
		}

		if err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return CopyVersion(ctx, st, tx, 3, 4)
		}); err != nil {
			t.Fatal(err)
		}
		for fid, s := range sums(t, st, 4) {
			if s == nil || *s != *written[fid] {
				t.Fatalf("copied fid %d: sum %v, want %d", fid, s, *written[fid])
			}
		}
	})
}
