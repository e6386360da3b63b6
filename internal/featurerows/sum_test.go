package featurerows

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

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
		// The check reads the partial index of rows without a sum, not
		// the version's rows.
		// (On PostgreSQL, the partition's copy of it: features_v3_version_id_idx.)
		if plan := explain(t, st, missingSums, 3); !strings.Contains(plan, "feature_sum_missing") && !strings.Contains(plan, "features_v3_version_id_idx") {
			t.Fatalf("the check for rows without a sum does not use its index:\n%s", plan)
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

// explain is the query plan of query with args, as text.
func explain(t *testing.T, st *store.Store, query string, args ...any) string {
	t.Helper()
	prefix := "EXPLAIN QUERY PLAN "
	if st.Dialect == dialect.Postgres {
		prefix = "EXPLAIN "
	}
	rows, err := st.DB.QueryContext(context.Background(), q(st, prefix+query), args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if s, ok := v.(string); ok {
				b.WriteString(s + " ")
			} else if by, ok := v.([]byte); ok {
				b.Write(by)
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
