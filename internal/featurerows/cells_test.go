package featurerows

import (
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/cellkey"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// inSpans reports whether key k lies in one of spans.
func inSpans(spans []cellSpan, k int64) bool {
	_, found := slices.BinarySearchFunc(spans, k, func(s cellSpan, k int64) int {
		switch {
		case s.hi < k:
			return -1
		case s.lo > k:
			return 1
		}
		return 0
	})
	return found
}

// randomBox draws boxes of every size class a layer holds: points, small
// and large polygons, boxes on cell edges (coordinates on a coarse grid),
// and a few outside the frame.
func randomBox(r *rand.Rand) Box {
	x, y := r.Float64()*360-180, r.Float64()*180-90
	if r.IntN(4) == 0 {
		// On the edges of level-6 cells.
		x = math.Round(x/cellkey.Width(6)) * cellkey.Width(6)
		y = math.Round(y/cellkey.Height(6)) * cellkey.Height(6)
	}
	var w, h float64
	switch r.IntN(5) {
	case 0: // a point
	case 1:
		w, h = r.Float64()*1e-4, r.Float64()*1e-4
	case 2:
		w, h = r.Float64()*0.1, r.Float64()*0.1
	case 3:
		w, h = r.Float64()*20, r.Float64()*10
	case 4:
		w, h = cellkey.Width(1+r.IntN(20)), cellkey.Height(1+r.IntN(20)) // exactly a cell's size
	}
	b := Box{x, y, x + w, y + h}
	if r.IntN(50) == 0 {
		b[2] += 400 // beyond the frame
	}
	return b
}

// Every box meeting a query box has its key in the query's spans: the
// lookup is a superset, whatever the sizes, edges and frame.
func TestCellSpansHoldEveryMeetingBox(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	boxes := make([]Box, 20000)
	keys := make([]int64, len(boxes))
	for i := range boxes {
		boxes[i] = randomBox(r)
		keys[i] = cellKey(boxes[i])
	}
	for range 300 {
		q := randomBox(r)
		if r.IntN(3) == 0 {
			// Queries touching a stored box's edge from outside.
			b := boxes[r.IntN(len(boxes))]
			q = Box{b[2], b[3], b[2] + r.Float64(), b[3] + r.Float64()}
		}
		for _, budget := range []budget{pgBudget, sqliteBudget} {
			spans := cellSpans(budget, q)
			for i, b := range boxes {
				if meets(b, q) && !inSpans(spans, keys[i]) {
					t.Fatalf("box %v (key %x, level %d) meets %v but its key is in none of %d spans (budget %v)",
						b, keys[i], cellkey.Level(keys[i]), q, len(spans), budget)
				}
			}
		}
	}
}

// A small query reads few, narrow spans: the lookup stays selective.
func TestCellSpansAreNarrow(t *testing.T) {
	q := Box{174.7, -41.3, 174.71, -41.29} // about 1 km
	spans := cellSpans(pgBudget, q)
	if len(spans) > pgBudget.spans+pgBudget.keys {
		t.Fatalf("%d spans", len(spans))
	}
	var width float64
	for _, s := range spans {
		width += float64(s.hi - s.lo + 1)
	}
	// The share of the key space read, against the query's share of the
	// frame's area (1e-4 / 64800 ≈ 1.5e-9).
	if share := width / float64(int64(1)<<61); share > 1e-7 {
		t.Fatalf("the spans cover %.3g of the key space", share)
	}
	for i := 1; i < len(spans); i++ {
		if spans[i].lo <= spans[i-1].hi+1 {
			t.Fatalf("spans %v and %v are not merged", spans[i-1], spans[i])
		}
	}
}

func BenchmarkCellSpansTile(b *testing.B) {
	q := Box{174.7, -41.3, 174.72, -41.28}
	for range b.N {
		cellSpans(pgBudget, q)
	}
}

// The stores' SQL key function (the PostgreSQL migration's PL/pgSQL, the
// Go function registered on SQLite connections) gives the writer's keys,
// and the triggers key box UPDATEs (and, on PostgreSQL, plain INSERTs),
// which BoxWhere then finds.
func TestCellKeySQLMatchesWriter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		r := rand.New(rand.NewPCG(3, 4))
		for range 2000 {
			b := randomBox(r)
			var got int64
			if err := st.DB.QueryRow(q(st, "SELECT features_cell_key(?, ?, ?, ?)"), b[0], b[1], b[2], b[3]).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if want := cellKey(b); got != want {
				t.Fatalf("features_cell_key(%v) = %x, cellKey = %x", b, got, want)
			}
		}
		var null sql.NullInt64
		if err := st.DB.QueryRow(q(st, "SELECT features_cell_key(?, NULL, 1, 1)"), 0.5).Scan(&null); err != nil || null.Valid {
			t.Fatalf("features_cell_key with a NULL coordinate = %v, %v; want NULL", null, err)
		}
		// PostgreSQL's insert trigger keys a row written without a key;
		// SQLite has none (see its migration), so a plain INSERT there
		// names its key as featurerows' own statements do.
		insert := `INSERT INTO features (version_id, fid, minx, miny, maxx, maxy)
			VALUES (5, 1, 174.7, -41.3, 174.8, -41.2) RETURNING id`
		if st.Dialect == dialect.SQLite {
			insert = `INSERT INTO features (version_id, fid, minx, miny, maxx, maxy, cell)
				VALUES (5, 1, 174.7, -41.3, 174.8, -41.2, features_cell_key(174.7, -41.3, 174.8, -41.2)) RETURNING id`
		}
		if st.Dialect == dialect.Postgres {
			ensurePartition(t, st, 5)
		}
		var id int64
		if err := st.DB.QueryRow(insert).Scan(&id); err != nil {
			t.Fatal(err)
		}
		where, args := BoxWhere(st.Dialect, 5, Box{174.75, -41.25, 174.76, -41.24})
		if got := idsWhere(t, st, where, args); !slices.Equal(got, []int64{id}) {
			t.Fatalf("a plain INSERT's row: BoxWhere found %v, want [%d]", got, id)
		}
		if _, err := st.DB.Exec(q(st, "UPDATE features SET minx = 10, miny = 10, maxx = 10, maxy = 10 WHERE id = ?"), id); err != nil {
			t.Fatal(err)
		}
		where, args = BoxWhere(st.Dialect, 5, Box{9, 9, 11, 11})
		if got := idsWhere(t, st, where, args); !slices.Equal(got, []int64{id}) {
			t.Fatalf("an updated box: BoxWhere found %v, want [%d]", got, id)
		}
	})
}

// ensurePartition gives version v its partition on PostgreSQL, for a
// test's plain INSERT (the Writer and CopyVersion make their own).
func ensurePartition(t *testing.T, st *store.Store, v int64) {
	t.Helper()
	q := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s PARTITION OF features FOR VALUES IN (%d)", partitionName(v), v)
	if _, err := st.DB.Exec(q); err != nil {
		t.Fatal(err)
	}
}
