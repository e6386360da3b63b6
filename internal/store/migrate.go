package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
)

// Migrations holds the versioned migration files, one folder per dialect.
// They are written by `go run ./internal/store/gen` from the Ent schema and
// checked against it by the store tests.
//
//go:embed migrations
var Migrations embed.FS

// migrationsTable records which migration versions are applied.
const migrationsTable = "geopub_schema_migrations"

// pgMigrationLock is the advisory lock key that keeps concurrent `serve`
// starts from migrating at the same time.
const pgMigrationLock = 7340129

// MigrationDir returns the migration folder of a dialect.
func MigrationDir(dialectName string) string {
	if dialectName == dialect.Postgres {
		return "migrations/postgres"
	}
	return "migrations/sqlite"
}

// migrationFile is one versioned file.
type migrationFile struct {
	version string
	name    string
	stmts   []string
}

func loadMigrations(dialectName string) ([]migrationFile, error) {
	dir := MigrationDir(dialectName)
	entries, err := fs.ReadDir(Migrations, dir)
	if err != nil {
		return nil, err
	}
	var out []migrationFile
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		b, err := fs.ReadFile(Migrations, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		f := migrate.NewLocalFile(e.Name(), b)
		stmts, err := f.Stmts()
		if err != nil {
			return nil, fmt.Errorf("parsing migration %s: %w", e.Name(), err)
		}
		out = append(out, migrationFile{version: f.Version(), name: e.Name(), stmts: stmts})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// Migrate applies every pending migration in version order, each in its own
// transaction, and returns the names it applied. On PostgreSQL an advisory
// lock serialises concurrent callers.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	files, err := loadMigrations(s.Dialect)
	if err != nil {
		return nil, err
	}
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if s.Dialect == dialect.Postgres {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", pgMigrationLock); err != nil {
			return nil, fmt.Errorf("taking the migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", pgMigrationLock)
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+migrationsTable+
		" (version varchar(64) PRIMARY KEY, name varchar(255) NOT NULL, applied_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP)"); err != nil {
		return nil, fmt.Errorf("creating %s: %w", migrationsTable, err)
	}
	applied := map[string]bool{}
	rows, err := conn.QueryContext(ctx, "SELECT version FROM "+migrationsTable)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return nil, err
		}
		applied[v] = true
	}
	rows.Close()
	insert := "INSERT INTO " + migrationsTable + " (version, name) VALUES (?, ?)"
	if s.Dialect == dialect.Postgres {
		insert = "INSERT INTO " + migrationsTable + " (version, name) VALUES ($1, $2)"
	}
	var done []string
	for _, f := range files {
		if applied[f.version] {
			continue
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return done, err
		}
		for _, stmt := range f.stmts {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				tx.Rollback()
				return done, fmt.Errorf("migration %s: %w", f.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, insert, f.version, f.name); err != nil {
			tx.Rollback()
			return done, err
		}
		if err := tx.Commit(); err != nil {
			return done, fmt.Errorf("migration %s: %w", f.name, err)
		}
		done = append(done, f.name)
	}
	return done, nil
}
