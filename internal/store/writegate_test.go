package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 11, defect 11: concurrent writers got SQLITE_BUSY. Transactions
// that read and then write, single statements, and a second pool on the
// same file (River's) all write at once; every write must queue and
// succeed, and readers keep reading meanwhile.
func TestConcurrentWritersQueue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var other *sql.DB
		if s.Dialect == dialect.SQLite {
			// A second pool, as the job system opens.
			var err error
			if other, err = sql.Open(store.SQLiteDriver, s.DSN()); err != nil {
				t.Fatal(err)
			}
			other.SetMaxOpenConns(1)
			defer other.Close()
			if _, err := other.ExecContext(ctx, "CREATE TABLE side (n INTEGER)"); err != nil {
				t.Fatal(err)
			}
		}
		const workers, rounds = 16, 25
		errs := make(chan error, workers*rounds*3)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range rounds {
					name := fmt.Sprintf("g%d-%d", w, i)
					// Read, then write, in one transaction.
					errs <- s.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
						n, err := c.Group.Query().Count(ctx)
						if err != nil {
							return err
						}
						time.Sleep(time.Millisecond) // widen the window between read and write
						return c.Group.Create().SetName(name).SetURLSlug(fmt.Sprintf("%s-%d", name, n)).Exec(ctx)
					})
					// A single statement, and a read beside the writers.
					errs <- s.Client.Group.Update().Where(group.Name(name)).SetCountry("NZ").Exec(ctx)
					if _, err := s.Client.Group.Query().Count(ctx); err != nil {
						errs <- err
					}
					if other != nil {
						_, err := other.ExecContext(ctx, "INSERT INTO side (n) VALUES (?)", i)
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		failed := 0
		for err := range errs {
			if err != nil {
				if failed++; failed <= 5 {
					t.Error(err)
				}
			}
		}
		if failed > 0 {
			t.Fatalf("%d writes failed", failed)
		}
		if n := s.Client.Group.Query().Where(group.NameHasPrefix("g")).CountX(ctx); n != workers*rounds {
			t.Fatalf("%d groups written, want %d", n, workers*rounds)
		}
	})
}

// A write through another connection while the caller's transaction is
// open could only wait for that transaction: on SQLite it fails at once.
func TestWriteBesideTxFailsAtOnce(t *testing.T) {
	s := storetest.Open(t, dialect.SQLite, storetest.Options{})
	ctx := context.Background()
	start := time.Now()
	err := s.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		if err := c.Group.Create().SetName("inside").SetURLSlug("inside").Exec(ctx); err != nil {
			return err
		}
		// Reads beside the transaction are fine.
		if _, err := s.Client.Group.Query().Count(ctx); err != nil {
			return err
		}
		return s.Client.Group.Create().SetName("beside").SetURLSlug("beside").Exec(ctx)
	})
	if !errors.Is(err, store.ErrWriteBesideTx) || time.Since(start) > 2*time.Second {
		t.Fatalf("write beside the transaction: %v after %s; want ErrWriteBesideTx at once", err, time.Since(start))
	}
	// A nested InTx is a write beside the outer one too.
	err = s.InTx(ctx, func(ctx context.Context, _ *ent.Client, _ *sql.Tx) error {
		return s.InTx(ctx, func(context.Context, *ent.Client, *sql.Tx) error { return nil })
	})
	if !errors.Is(err, store.ErrWriteBesideTx) {
		t.Fatalf("nested InTx: %v", err)
	}
	// After the transaction, the same context writes normally.
	var kept context.Context
	_ = s.InTx(ctx, func(ctx context.Context, _ *ent.Client, _ *sql.Tx) error { kept = ctx; return nil })
	if err := s.Client.Group.Create().SetName("after").SetURLSlug("after").Exec(kept); err != nil {
		t.Fatalf("write with a context kept after its transaction: %v", err)
	}
	if n := s.Client.Group.Query().Where(group.NameIn("inside", "beside")).CountX(ctx); n != 0 {
		t.Fatalf("%d rows of the failed transaction kept", n)
	}
}

// Issue 24, defect 0: the write gate took any statement not starting with
// SELECT for a write, so a read starting WITH (the indexed items query)
// held a pooled connection while it queued behind every writer. SQLite
// says which statements write: reads pass while a writer holds the gate,
// writes of any shape still queue.
func TestReadsNeverQueueAtTheGate(t *testing.T) {
	s := storetest.Open(t, dialect.SQLite, storetest.Options{})
	ctx := context.Background()
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- s.InTx(ctx, func(context.Context, *ent.Client, *sql.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	defer func() { close(release); <-held }()

	reads := []string{
		"WITH n(v) AS (SELECT count(*) FROM groups) SELECT v FROM n",
		"/* a comment first */ SELECT count(*) FROM groups",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3) SELECT count(*) FROM c",
		"VALUES (1)",
	}
	for _, q := range reads {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var n int
		if err := s.DB.QueryRowContext(qctx, q).Scan(&n); err != nil {
			t.Errorf("read %q beside a writer through the pool: %v", q, err)
		}
		var rows entsql.Rows
		if err := s.Driver.Query(qctx, q, []any{}, &rows); err != nil {
			t.Errorf("read %q beside a writer through Ent: %v", q, err)
		} else {
			rows.Close()
		}
		cancel()
	}
	writes := []string{
		"WITH g(n) AS (SELECT 'w') INSERT INTO groups (name, url_slug, created_at, updated_at) SELECT n, n, 0, 0 FROM g RETURNING id",
		"INSERT INTO groups (name, url_slug, created_at, updated_at) VALUES ('x', 'x', 0, 0) RETURNING id",
		"UPDATE groups SET country = 'NZ' RETURNING id",
	}
	for _, q := range writes {
		qctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		rows, err := s.DB.QueryContext(qctx, q)
		if err == nil {
			rows.Close()
			t.Errorf("write %q ran while another writer held the gate", q)
		} else if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("write %q: %v, want it to wait at the gate until its deadline", q, err)
		}
		cancel()
	}
}
