// Package store opens Geopub's database, the embedded SQLite file by default
// or PostgreSQL at scale, applies the versioned migrations and seeds the
// rows the service cannot run without (the site default group and the
// members group).
package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/geopub/geopub/ent"
	_ "github.com/geopub/geopub/ent/runtime" // schema defaults and validators
)

// Store is an open database with its Ent client.
type Store struct {
	Client *ent.Client
	// DB is the pool under Client.
	DB *sql.DB
	// Driver is the Ent driver under Client.
	Driver dialect.Driver
	// Dialect is dialect.SQLite or dialect.Postgres.
	Dialect string
	// URL is the database URL the store was opened with, password removed.
	URL string

	// dsn is the connection string as opened, credentials included.
	dsn string
	// writer is SQLite's pool for writes (nil on PostgreSQL): writers
	// have connections of their own, so reads that fill DB's pool never
	// hold up the one writer the gate admits (issue 24).
	writer *sql.DB
	// probe is the readiness check's own connection (Ping).
	probe *sql.DB
	// heavy bounds the reads that may hold a connection for long
	// (heavyread.go).
	heavy *heavyReads
	// txConns maps each open InTx transaction to the connection it runs on.
	txConns sync.Map // *sql.Tx -> *sql.Conn
	// gate queues the writers of a SQLite file (nil on PostgreSQL); see
	// writegate.go.
	gate *writeGate

	// observers are attached to every InTx transaction (observe.go).
	obsMu     sync.Mutex
	observers []observer
}

// DSN returns the connection string the store was opened with, credentials
// included, for components that open their own pool to the same database
// (the job system). Never log it; log URL instead.
func (s *Store) DSN() string { return s.dsn }

// Config says which database to open.
type Config struct {
	// DatabaseURL is a postgres:// or postgresql:// URL, a sqlite: or
	// file: path, or empty for DataDir/geopub.db.
	DatabaseURL string
	// DataDir holds the SQLite file when DatabaseURL is empty.
	DataDir string
	// Driver, when set, wraps the Ent driver (tests count statements with it).
	Driver func(dialect.Driver) dialect.Driver
}

// Open opens the database named by cfg without migrating it.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	dialectName, driverName, dsn, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	var db *sql.DB
	if dialectName == dialect.Postgres {
		db, err = openPostgres(dsn)
	} else {
		db, err = sql.Open(driverName, dsn)
	}
	if err != nil {
		return nil, fmt.Errorf("opening database: %w", err)
	}
	poolSize := sqlitePool
	if dialectName == dialect.SQLite {
		// One writer at a time is SQLite's rule: writers queue at the
		// write gate (writegate.go) and write on a pool of their own,
		// while a small pool keeps readers concurrent under WAL.
		db.SetMaxOpenConns(sqlitePool)
	} else {
		poolSize = postgresPool
		db.SetMaxOpenConns(postgresPool)
		db.SetConnMaxIdleTime(5 * time.Minute)
	}
	// database/sql keeps 2 idle connections by default: with more
	// requests in flight than that, every finished one closed its
	// connection and the next opened a new one (a PostgreSQL backend
	// forked, authenticated and its catalog caches and our prepared
	// statements rebuilt: tens of milliseconds per statement under load).
	db.SetMaxIdleConns(poolSize)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to %s database: %w", dialectName, err)
	}
	var drv dialect.Driver = entsql.OpenDB(dialectName, db)
	var (
		gate   *writeGate
		writer *sql.DB
	)
	if dialectName == dialect.SQLite {
		if writer, err = sql.Open(driverName, dsn); err != nil {
			db.Close()
			return nil, fmt.Errorf("opening database: %w", err)
		}
		writer.SetMaxOpenConns(sqliteWriters)
		writer.SetMaxIdleConns(sqliteWriters)
		gate = gateFor(dsn)
		drv = gatedEnt{Driver: drv, writer: entsql.OpenDB(dialectName, writer), gate: gate}
	}
	if cfg.Driver != nil {
		drv = cfg.Driver(drv)
	}
	// Opened lazily: sql.Open connects on first use.
	probe, err := sql.Open(driverName, dsn)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening database: %w", err)
	}
	probe.SetMaxOpenConns(1)
	probe.SetMaxIdleConns(1)
	st := &Store{
		Client:  newClient(drv),
		DB:      db,
		Driver:  drv,
		Dialect: dialectName,
		URL:     redact(dsn, dialectName),
		dsn:     dsn,
		writer:  writer,
		probe:   probe,
		gate:    gate,
		heavy:   newHeavyReads(poolSize),
	}
	st.Client.Use(st.accessHook)
	st.Observe("access", st.accessObservation)
	return st, nil
}

// Pool sizes: SQLite's readers (WAL keeps them concurrent; the machine's
// cores bound what more would give) and its writers (the gate admits one;
// the second serves a writer's read beside it), PostgreSQL's connections.
const (
	sqlitePool    = 4
	sqliteWriters = 2
	postgresPool  = 20
)

// OpenAndMigrate opens the database, applies pending migrations and seeds
// the required rows: what `geopub serve` does at start.
func OpenAndMigrate(ctx context.Context, cfg Config) (*Store, error) {
	s, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.Seed(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// newClient is the Ent client over drv with the hooks every client of the
// store carries: textHook, the storage boundary's text rules.
func newClient(drv dialect.Driver) *ent.Client {
	c := ent.NewClient(ent.Driver(drv))
	c.Use(textHook)
	return c
}

// Ping reports whether the database answers. It pings on a connection of
// its own, so a pool held by load (a busy replica) does not read as an
// unreachable database.
func (s *Store) Ping(ctx context.Context) error {
	if s.probe == nil {
		return s.DB.PingContext(ctx)
	}
	return s.probe.PingContext(ctx)
}

// Close closes the client and its pools.
func (s *Store) Close() error {
	err := s.Client.Close()
	if s.probe != nil {
		_ = s.probe.Close()
	}
	if s.writer != nil {
		if werr := s.writer.Close(); err == nil {
			err = werr
		}
	}
	return err
}

// txPool is the pool transactions run on: SQLite's writers, or the one
// PostgreSQL pool.
func (s *Store) txPool() *sql.DB {
	if s.writer != nil {
		return s.writer
	}
	return s.DB
}

func resolve(cfg Config) (dialectName, driverName, dsn string, err error) {
	u := cfg.DatabaseURL
	switch {
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		return dialect.Postgres, "pgx", u, nil
	case u == "":
		dir := cfg.DataDir
		if dir == "" {
			dir = "data"
		}
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return "", "", "", fmt.Errorf("creating data directory: %w", err)
		}
		return dialect.SQLite, SQLiteDriver, sqliteDSN(filepath.Join(dir, "geopub.db")), nil
	case strings.HasPrefix(u, "sqlite:"):
		return dialect.SQLite, SQLiteDriver, sqliteDSN(strings.TrimPrefix(strings.TrimPrefix(u, "sqlite:"), "//")), nil
	case strings.HasPrefix(u, "file:"):
		return dialect.SQLite, SQLiteDriver, withTxLock(u), nil
	default:
		return "", "", "", fmt.Errorf("unsupported database URL %q: use postgres://..., sqlite:PATH or leave it empty for the embedded database", redact(u, ""))
	}
}

// sqliteDSN turns a file path into the modernc DSN with the pragmas Geopub
// relies on: foreign keys enforced, WAL, and waiting for locks.
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// withTxLock adds _txlock=immediate to a file: DSN that does not choose a
// locking mode, so its transactions take the write lock at BEGIN (a
// deferred transaction that reads and then writes fails with SQLITE_BUSY
// instead of waiting).
func withTxLock(dsn string) string {
	if strings.Contains(dsn, "_txlock=") {
		return dsn
	}
	if strings.Contains(dsn, "?") {
		return dsn + "&_txlock=immediate"
	}
	return dsn + "?_txlock=immediate"
}

func redact(dsn, dialectName string) string {
	if dialectName == dialect.SQLite {
		return dsn
	}
	if i := strings.Index(dsn, "://"); i >= 0 {
		rest := dsn[i+3:]
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			cred := rest[:at]
			if c := strings.Index(cred, ":"); c >= 0 {
				cred = cred[:c] + ":***"
			}
			return dsn[:i+3] + cred + rest[at:]
		}
	}
	return dsn
}
