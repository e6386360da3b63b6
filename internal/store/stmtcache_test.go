package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/geopub/geopub/internal/store"
)

// The statement cache must answer exactly as fresh statements do: a query
// nested in the reading of another with the same text, more distinct
// texts than the cache holds, writes, and a table altered under a cached
// statement.
func TestStatementCacheAnswersAsFreshStatements(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open(store.SQLiteDriver, "file:"+filepath.Join(t.TempDir(), "c.db")+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // every statement on the one connection and its cache
	must := func(_ sql.Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.ExecContext(ctx, "CREATE TABLE t (n INTEGER)"))
	for i := range 5 {
		must(db.ExecContext(ctx, "INSERT INTO t (n) VALUES (?)", i))
	}

	// The same text, nested: the inner query runs while the outer one's
	// rows are open.
	const q = "SELECT n FROM t WHERE n >= ? ORDER BY n"
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	outer, err := tx.QueryContext(ctx, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for outer.Next() {
		var n int
		if err := outer.Scan(&n); err != nil {
			t.Fatal(err)
		}
		var inner int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM ("+q+")", n).Scan(&inner); err != nil {
			t.Fatal(err)
		}
		rows, err := tx.QueryContext(ctx, q, n)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for rows.Next() {
			k++
		}
		rows.Close()
		if k != inner {
			t.Fatalf("nested %d: %d rows, count %d", n, k, inner)
		}
		got = append(got, n, k)
	}
	if err := outer.Err(); err != nil {
		t.Fatal(err)
	}
	outer.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[3 2 4 1]" {
		t.Fatalf("nested reads: %v, want [3 2 4 1]", got)
	}

	// More texts than the cache keeps, each asked twice.
	for round := range 2 {
		for i := range 600 {
			var n int
			if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) + %d FROM t", i)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 5+i {
				t.Fatalf("round %d, text %d: %d", round, i, n)
			}
		}
	}

	// A cached statement over a table that changes shape.
	const sel = "SELECT * FROM t ORDER BY n LIMIT 1"
	cols := func() []string {
		rows, err := db.QueryContext(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		c, _ := rows.Columns()
		return c
	}
	if c := cols(); len(c) != 1 {
		t.Fatalf("columns before: %v", c)
	}
	must(db.ExecContext(ctx, "ALTER TABLE t ADD COLUMN m TEXT"))
	if c := cols(); len(c) != 2 {
		t.Fatalf("columns after ALTER: %v, want n and m", c)
	}
	must(db.ExecContext(ctx, "DELETE FROM t WHERE n < ?", 4))
	var left int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&left); err != nil || left != 1 {
		t.Fatalf("after the cached DELETE: %d rows (%v), want 1", left, err)
	}
}
