package search_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// secondProcess opens another pool on the store's database, as another
// Geopub process would, and its own index (and so its own view).
func secondProcess(t *testing.T, s *store.Store) search.Index {
	t.Helper()
	driver := store.SQLiteDriver
	if s.Dialect == dialect.Postgres {
		driver = "pgx"
	}
	db, err := sql.Open(driver, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return search.NewForDB(db, s.Dialect)
}

func total(t *testing.T, ix search.Index, q search.Query) int {
	t.Helper()
	res, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res.TotalCount
}

// Issue 13: the index is "kept current in the same transaction as every
// write that changes an indexed field". Each process keeps its view in
// memory; a write committed through one process is seen by the next
// search of every other: new docs, retitles, deletions and permission
// changes alike.
func TestEveryProcessSeesCommittedChanges(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		one, two := search.New(s), secondProcess(t, s)
		anon := search.Query{Viewer: &access.Viewer{}, Q: "wetlands"}
		admin := search.Query{Viewer: &access.Viewer{SiteAdmin: true}, Q: "wetlands"}
		if total(t, two, admin) != 0 {
			t.Fatal("docs before any were put")
		}
		putDocs(t, s, one, []search.Doc{layer(1, "Wetlands", ""), layer(2, "Coastal wetlands", "")}, 2)
		if n := total(t, two, anon); n != 1 {
			t.Fatalf("anonymous sees %d docs in the other process, want the public one", n)
		}
		// A grant to everyone makes the private doc public.
		err := s.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
			return c.DatasetPermission.Create().SetDatasetKind(access.KindLayer).SetDatasetID(2).
				SetSubject(datasetpermission.SubjectEveryone).SetPermission(datasetpermission.PermissionView).Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := total(t, two, anon); n != 2 {
			t.Fatalf("after the grant anonymous sees %d, want 2", n)
		}
		// A retitle and a delete.
		d := layer(1, "Rivers", "")
		err = s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			if err := one.Put(ctx, tx, d); err != nil {
				return err
			}
			return one.Delete(ctx, tx, layer(2, "", "").Ref)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := total(t, two, admin); n != 0 {
			t.Fatalf("after the retitle and delete %d docs match, want 0", n)
		}
		if n := total(t, two, search.Query{Viewer: &access.Viewer{SiteAdmin: true}, Q: "rivers"}); n != 1 {
			t.Fatalf("the retitled doc: %d matches, want 1", n)
		}
		// A rolled-back write leaves every view as it was.
		err = s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			if err := one.Put(ctx, tx, layer(3, "Wetlands again", "")); err != nil {
				return err
			}
			return context.Canceled
		})
		if err != context.Canceled {
			t.Fatal(err)
		}
		if n := total(t, two, admin) + total(t, one, admin); n != 0 {
			t.Fatalf("a rolled-back put is visible: %d", n)
		}
	})
}

// On PostgreSQL a change log row can commit after one numbered above it:
// a transaction that wrote first and commits last. The view must still
// apply it.
func TestViewAppliesChangesCommittedOutOfOrder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		if s.Dialect != dialect.Postgres {
			t.Skip("SQLite has one writer at a time: its changes commit in order")
		}
		ctx := context.Background()
		one, two := search.New(s), secondProcess(t, s)
		admin := search.Query{Viewer: &access.Viewer{SiteAdmin: true}, Q: "harbour"}
		first, err := s.DB.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer first.Rollback()
		if err := one.Put(ctx, first, layer(1, "Harbour early", "")); err != nil {
			t.Fatal(err)
		}
		putDocs(t, s, one, []search.Doc{layer(2, "Harbour late", "")})
		if n := total(t, two, admin); n != 1 {
			t.Fatalf("before the first transaction commits: %d, want 1", n)
		}
		if err := first.Commit(); err != nil {
			t.Fatal(err)
		}
		if n := total(t, two, admin); n != 2 {
			t.Fatalf("after it commits: %d, want 2", n)
		}
	})
}

// "sort: popularity (views and downloads; record them)": popularity
// added in a transaction reorders the next search.
func TestPopularityReorders(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ix := search.New(s)
		putDocs(t, s, ix, []search.Doc{layer(1, "Quiet", ""), layer(2, "Busy", "")})
		first := func() string {
			res, err := ix.Search(context.Background(), search.Query{Sort: search.SortPopularity})
			if err != nil || len(res.Hits) != 2 {
				t.Fatalf("search: %v %v", res.Hits, err)
			}
			return res.Hits[0].Title
		}
		if first() != "Quiet" {
			t.Fatal("equal popularity should order by index id")
		}
		err := s.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return ix.AddPopularity(ctx, tx, "layer", 2, 5)
		})
		if err != nil {
			t.Fatal(err)
		}
		if first() != "Busy" {
			t.Fatal("the more popular doc should come first")
		}
	})
}

// The change log is pruned of rows older than an hour; a process whose
// view had not read that far reloads instead of missing what was pruned.
func TestPrunedChangesMakeStaleViewsReload(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		one, two := search.New(s), secondProcess(t, s)
		admin := search.Query{Viewer: &access.Viewer{SiteAdmin: true}, Q: "wetlands"}
		if total(t, two, admin) != 0 {
			t.Fatal("docs before any were put")
		}
		putDocs(t, s, one, []search.Doc{layer(1, "Wetlands", "")})
		if _, err := s.DB.ExecContext(ctx, "UPDATE search_changes SET at = at - 7200"); err != nil {
			t.Fatal(err)
		}
		search.ResetPruneClock(one)
		putDocs(t, s, one, []search.Doc{layer(2, "Coastal wetlands", "")})
		var left, pruned int
		if err := s.DB.QueryRowContext(ctx, "SELECT value FROM search_meta WHERE key = 'pruned_seq'").Scan(&pruned); err != nil || pruned == 0 {
			t.Fatalf("pruned_seq %d (%v)", pruned, err)
		}
		if err := s.DB.QueryRowContext(ctx, store.Rebind("SELECT count(*) FROM search_changes WHERE seq <= ? OR at < ?", s.Dialect == "postgres"),
			pruned, time.Now().Add(-time.Hour).Unix()).Scan(&left); err != nil || left != 0 {
			t.Fatalf("pruned rows or rows older than an hour left: %d (%v)", left, err)
		}
		if n := total(t, two, admin); n != 2 {
			t.Fatalf("the stale process sees %d docs after the pruning, want 2", n)
		}
	})
}
