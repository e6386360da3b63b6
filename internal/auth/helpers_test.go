package auth

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "modernc.org/sqlite"

	"github.com/geopub/geopub/ent"
	// Schema defaults and hooks live in ent/runtime since AuditEntry has
	// a schema hook; the store imports it, this client needs it too.
	_ "github.com/geopub/geopub/ent/runtime"
)

// newTestClient returns an Ent client over a private in-memory SQLite
// database with the schema created. (A shared store package will replace
// this helper.)
func newTestClient(t *testing.T) *ent.Client {
	t.Helper()
	name := strings.NewReplacer("/", "_", " ", "_", "#", "_", "?", "_").Replace(t.Name())
	db, err := sql.Open("sqlite", "file:"+name+"?mode=memory&cache=shared&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, db)))
	t.Cleanup(func() { client.Close() })
	if err := client.Schema.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	return client
}

// entTx runs audited writes in an Ent transaction of c: the store's InTx
// without its write gate and observers, which these tests do not need
// (the store's packages import this one, so its tests cannot use it).
type entTx struct{ c *ent.Client }

func (e entTx) InTx(ctx context.Context, fn func(ctx context.Context, c *ent.Client, tx *sql.Tx) error) error {
	tx, err := e.c.Tx(ctx)
	if err != nil {
		return err
	}
	if err := fn(ctx, tx.Client(), nil); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// testClock is a settable clock for Service.now.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time          { return c.t }
func (c *testClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// newTestService returns a Service over a fresh database whose clock the
// test controls.
func newTestService(t *testing.T, cfg Config) (*Service, *testClock) {
	t.Helper()
	clock := &testClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	c := newTestClient(t)
	s := NewService(c, entTx{c}, cfg)
	s.now = clock.now
	return s, clock
}

// createUser stores a user with the given password (none when empty).
func createUser(t *testing.T, s *Service, email, password string, locked bool) *ent.User {
	t.Helper()
	hash := ""
	if password != "" {
		var err error
		if hash, err = HashPassword(password); err != nil {
			t.Fatal(err)
		}
	}
	u, err := s.client.User.Create().
		SetEmail(email).SetPasswordHash(hash).SetIsLocked(locked).
		Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return u
}
