package featurerows

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// keyedRow is row i of a version keyed by code (text that shares
// prefixes, is empty, holds spaces, control and non-ASCII characters)
// and n (an integer).
func keyedRow(i int) Row {
	codes := []string{"", "a", "ab", "a b", "a\x01", "é", "Z", "東京", "a\tb", "10", "9"}
	return Row{FID: int64(i + 1), Geom: wkbPoint(float64(i), 1), Attrs: map[string]any{
		"code": codes[i%len(codes)], "n": int64(i / len(codes)), "v": fmt.Sprint(i),
	}}
}

// storedOrder reads a version's whole stored key order.
func readStoredOrder(t *testing.T, st *store.Store, versionID int) []KeyRow {
	t.Helper()
	s := readOrder(context.Background(), st, versionID, nil)
	var out []KeyRow
	for {
		r, ok := s.Peek()
		if !ok {
			break
		}
		out = append(out, KeyRow{Key: decodeKey(r.k), ID: r.id, Sum: r.sum})
		s.Next()
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	return out
}

func scanAll(t *testing.T, st *store.Store, versionID int, fields []string) []KeyRow {
	t.Helper()
	var out []KeyRow
	if err := ScanKeys(context.Background(), st, versionID, fields, func(b []KeyRow) error {
		out = append(out, b...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustKeyOrder(t *testing.T, st *store.Store, versionID int, fields []string, want bool) {
	t.Helper()
	ok, err := KeyOrder(context.Background(), st, versionID, fields)
	if err != nil {
		t.Fatal(err)
	}
	if ok != want {
		t.Fatalf("KeyOrder(version %d, %q) = %v, want %v", versionID, fields, ok, want)
	}
}

// The stored order is ScanKeys' order: the same keys, ids and sums in
// the same sequence, however the texts compare.
func TestKeyOrderIsScanKeysOrder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		writeRows(t, st, 1, 500, keyedRow)
		fields := []string{"code", "n"}
		mustKeyOrder(t, st, 1, fields, true)
		mustKeyOrder(t, st, 1, fields, true) // built once, then read
		got, want := readStoredOrder(t, st, 1), scanAll(t, st, 1, fields)
		if len(got) != 500 || !reflect.DeepEqual(got, want) {
			t.Fatalf("stored order (%d rows) differs from ScanKeys (%d rows):\n got %v\nwant %v", len(got), len(want), got[:10], want[:10])
		}
		// The version's order is by code and n: not usable by another key.
		mustKeyOrder(t, st, 1, []string{"v"}, false)
	})
}

// Fields that leave a row without a value, or give two rows the same
// values, have no stored order; a diff then sorts as before.
func TestKeyOrderUnusable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		writeRows(t, st, 1, 50, keyedRow)
		mustKeyOrder(t, st, 1, []string{"code"}, false) // repeated
		writeRows(t, st, 2, 50, func(i int) Row {
			r := keyedRow(i)
			if i == 30 {
				delete(r.Attrs, "n")
			}
			if i == 31 {
				r.Attrs["n"] = nil
			}
			return r
		})
		mustKeyOrder(t, st, 2, []string{"code", "n"}, false) // missing
		var n int
		if err := st.DB.QueryRow("SELECT count(*) FROM feature_keys").Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d key rows left by failed builds (%v)", n, err)
		}
	})
}

// ChangedKeys finds inserted, deleted and changed rows by key, and only
// those, resuming after a key.
func TestChangedKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		const n = 9000 // three chunks a version
		row := func(i int) Row {
			return Row{FID: int64(i + 1), Geom: wkbPoint(float64(i), 2), Attrs: map[string]any{"id": int64(i), "name": fmt.Sprint("r", i)}}
		}
		writeRows(t, st, 1, n, row)
		// Version 2: every 10th row deleted, every 10th+3 renamed, 500
		// new rows.
		var b []Row
		for i := range n {
			switch {
			case i%10 == 0:
				continue
			case i%10 == 3:
				r := row(i)
				r.Attrs["name"] = "renamed"
				b = append(b, r)
			default:
				b = append(b, row(i))
			}
		}
		for i := n; i < n+500; i++ {
			b = append(b, row(i))
		}
		writeRows(t, st, 2, len(b), func(i int) Row { return b[i] })
		mustKeyOrder(t, st, 1, []string{"id"}, true)
		mustKeyOrder(t, st, 2, []string{"id"}, true)

		ids := func(v int) map[string]int64 {
			m := map[string]int64{}
			for _, r := range scanAll(t, st, v, []string{"id"}) {
				m[r.Key[0]] = r.ID
			}
			return m
		}
		aIDs, bIDs := ids(1), ids(2)
		var want []KeyChange
		for _, r := range scanAll(t, st, 1, []string{"id"}) { // text order
			want = append(want, KeyChange{Key: r.Key, AID: aIDs[r.Key[0]], BID: bIDs[r.Key[0]]})
		}
		for _, r := range scanAll(t, st, 2, []string{"id"}) {
			if aIDs[r.Key[0]] == 0 {
				want = append(want, KeyChange{Key: r.Key, BID: r.ID})
			}
		}
		want = filterChanges(want, func(c KeyChange) bool {
			var i int
			fmt.Sscan(c.Key[0], &i)
			return i%10 == 0 || i%10 == 3 || i >= n
		})
		slices.SortFunc(want, func(a, b KeyChange) int { return CompareKeys(a.Key, b.Key) })

		got := changedKeys(t, st, nil)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ChangedKeys: %d changes, want %d\n got %v\nwant %v", len(got), len(want), head(got), head(want))
		}
		// Resumed after keys in every chunk, and after a key of no row.
		for _, i := range []int{0, 1, len(want) / 3, len(want) / 2, len(want) - 2, len(want) - 1} {
			after := want[i].Key
			if got := changedKeys(t, st, after); len(got)+len(want[i+1:]) > 0 && !reflect.DeepEqual(got, want[i+1:]) {
				t.Fatalf("ChangedKeys after %q: %d changes, want %d", after, len(got), len(want)-i-1)
			}
		}
		if got := changedKeys(t, st, []string{"5000x"}); len(got) == 0 || CompareKeys(got[0].Key, []string{"5000x"}) <= 0 {
			t.Fatalf("ChangedKeys after a key of no row starts at %v", got[:1])
		}

		// Deleting a version deletes its order.
		if err := st.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return DeleteVersion(ctx, st, tx, 1)
		}); err != nil {
			t.Fatal(err)
		}
		var left int
		if err := st.DB.QueryRow(q(st, "SELECT count(*) FROM feature_keys WHERE version_id = 1")).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%d key rows of a deleted version (%v)", left, err)
		}
		if ok, found, err := storedOrder(context.Background(), st, st.DB, 1, `["id"]`); ok || found || err != nil {
			t.Fatalf("deleted version's order: ok %v found %v err %v", ok, found, err)
		}
	})
}

func changedKeys(t *testing.T, st *store.Store, after []string) []KeyChange {
	t.Helper()
	var out []KeyChange
	if err := ChangedKeys(context.Background(), st, 1, 2, after, func(b []KeyChange) error {
		out = append(out, b...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func filterChanges(cs []KeyChange, keep func(KeyChange) bool) []KeyChange {
	var out []KeyChange
	for _, c := range cs {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

func head(cs []KeyChange) []KeyChange { return cs[:min(len(cs), 5)] }

func TestChunkRoundTrip(t *testing.T) {
	rows := []orderRow{
		{k: encodeKey([]string{"", "a"}), id: 9, sum: -1},
		{k: encodeKey([]string{"a", "b"}), id: 3, sum: 1 << 62},
		{k: encodeKey([]string{"ab", "b"}), id: 1 << 40, sum: 0},
		{k: encodeKey([]string{"東京", ""}), id: 1, sum: 42},
	}
	b := packChunk(nil, rows)
	got, err := unpackChunk(nil, b)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("round trip: %v %+v", err, got)
	}
	// A cut chunk is refused, or read as the whole rows before the cut:
	// never read past its end.
	for i := 1; i < len(b); i++ {
		if got, err := unpackChunk(nil, b[:i]); err == nil && !reflect.DeepEqual(got, rows[:len(got)]) || len(got) == len(rows) {
			t.Fatalf("cut at %d of %d: %d rows, %v", i, len(b), len(got), err)
		}
	}
	if got := decodeKey(encodeKey([]string{"", "x", ""})); !reflect.DeepEqual(got, []string{"", "x", ""}) {
		t.Fatalf("key round trip: %q", got)
	}
}
