// Package storetest opens real, migrated, seeded databases for tests: an
// in-memory SQLite database, and a scratch PostgreSQL database when
// GEOPUB_TEST_DATABASE_URL names a server. Each runs a test body once per
// backend, so one integration suite covers both.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/internal/store"
)

// EnvDatabaseURL names a PostgreSQL server for the PostgreSQL half of the
// suite; each test gets its own scratch database there.
const EnvDatabaseURL = "GEOPUB_TEST_DATABASE_URL"

// EnvRequirePostgres, set to 1, turns a missing EnvDatabaseURL into a
// failure instead of a skip (CI sets it).
const EnvRequirePostgres = "GEOPUB_REQUIRE_POSTGRES"

// Backends are the dialects Each runs.
var Backends = []string{dialect.SQLite, dialect.Postgres}

var seq atomic.Int64

// Options tune Open.
type Options struct {
	// Driver wraps the Ent driver, as store.Config.Driver.
	Driver func(dialect.Driver) dialect.Driver
}

// Each runs fn as a subtest per backend ("sqlite", "postgres") with a fresh
// migrated and seeded store.
func Each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	for _, d := range Backends {
		t.Run(d, func(t *testing.T) {
			fn(t, Open(t, d, Options{}))
		})
	}
}

// Open returns a fresh migrated and seeded store of the given dialect,
// closed and (for PostgreSQL) dropped when the test ends.
func Open(t testing.TB, dialectName string, opts Options) *store.Store {
	t.Helper()
	ctx := context.Background()
	cfg := store.Config{Driver: opts.Driver}
	if os.Getenv("GEOPUB_TEST_DEBUG_SQL") == "1" && cfg.Driver == nil {
		// Log every statement: a debugging aid for failing tests.
		cfg.Driver = func(d dialect.Driver) dialect.Driver {
			return dialect.Debug(d, func(a ...any) { t.Log(a...) })
		}
	}
	switch dialectName {
	case dialect.SQLite:
		// A file, as in production: WAL and busy_timeout behave as they
		// will there (shared-cache memory databases lock differently).
		cfg.DataDir = t.TempDir()
	case dialect.Postgres:
		cfg.DatabaseURL = scratchFrom(t, migratedTemplate(t))
	default:
		t.Fatalf("storetest: unknown dialect %q", dialectName)
	}
	s, err := store.OpenAndMigrate(ctx, cfg)
	if err != nil {
		t.Fatalf("storetest: opening %s store: %v", dialectName, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// PostgresURL returns the configured server URL, skipping (or failing, when
// required) the test when there is none.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvDatabaseURL)
	if u == "" {
		if os.Getenv(EnvRequirePostgres) == "1" {
			t.Fatalf("storetest: %s is not set but %s=1: the PostgreSQL suite must run", EnvDatabaseURL, EnvRequirePostgres)
		}
		t.Skipf("storetest: PostgreSQL suite skipped: set %s (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) to run it", EnvDatabaseURL)
	}
	return u
}

// ScratchPostgres creates an empty database on the configured server
// (skipping the test when there is none), drops it when the test ends, and
// returns its URL: for tests that start the service as another process.
func ScratchPostgres(t testing.TB) string {
	t.Helper()
	return scratchFrom(t, "")
}

// scratchFrom creates a scratch database as a copy of template (empty
// for the server's default).
func scratchFrom(t testing.TB, template string) string {
	t.Helper()
	server := PostgresURL(t)
	admin, err := sql.Open("pgx", server)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	name := fmt.Sprintf("geopub_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, seq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := admin.ExecContext(ctx, create); err != nil {
		admin.Close()
		t.Fatalf("storetest: creating scratch database: %v", err)
	}
	// A test's commits need not wait for the WAL to reach the disk: no
	// test survives the database server's crash, and a commit that waits
	// for fsync costs milliseconds, hundreds of times per test.
	if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+name+" SET synchronous_commit = off"); err != nil {
		admin.Close()
		t.Fatalf("storetest: configuring scratch database: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("storetest: dropping %s: %v", name, err)
		}
	})
	return WithDatabase(server, name)
}

// WithDatabase replaces the database name in a PostgreSQL URL.
func WithDatabase(u, db string) string {
	q := ""
	if i := strings.Index(u, "?"); i >= 0 {
		u, q = u[:i], u[i:]
	}
	scheme := strings.Index(u, "://") + 3
	if i := strings.LastIndex(u, "/"); i >= scheme {
		u = u[:i]
	}
	return u + "/" + db + q
}
