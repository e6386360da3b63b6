package jobs

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/geopub/geopub/internal/store"
)

// pgRiverMigrationLock is the advisory lock key that keeps concurrent
// starts from applying River's migrations at the same time.
const pgRiverMigrationLock = 7340130

// MigrateRiver applies River's own migrations (its river_* tables) to the
// store's database and returns the versions it applied; none when they are
// up to date. Call it right after store.Migrate (serve, worker, migrate do).
// River's schema stays River's: it is not part of Ent.
func MigrateRiver(ctx context.Context, st *store.Store) ([]int, error) {
	var res *rivermigrate.MigrateResult
	switch st.Dialect {
	case dialect.SQLite:
		db, err := sql.Open(store.SQLiteDriver, st.DSN())
		if err != nil {
			return nil, err
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		m, err := rivermigrate.New(riversqlite.New(db), nil)
		if err != nil {
			return nil, err
		}
		// One transaction (BEGIN IMMEDIATE under the store's DSN), so a
		// concurrent migrator waits for it.
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer tx.Rollback()
		//lint:ignore SA1019 one transaction is what serialises concurrent migrators on SQLite, whose migrations batch safely
		if res, err = m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil); err != nil {
			return nil, fmt.Errorf("jobs: River migrations: %w", err)
		}
		if err := tx.Commit(); err != nil {
			return nil, err
		}
	case dialect.Postgres:
		pool, err := pgxpool.New(ctx, st.DSN())
		if err != nil {
			return nil, err
		}
		defer pool.Close()
		m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
		if err != nil {
			return nil, err
		}
		// River applies each version in its own transaction (a new enum
		// value cannot be used in the transaction that adds it), so the
		// lock is a session lock on a connection of its own.
		conn, err := pool.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", pgRiverMigrationLock); err != nil {
			return nil, fmt.Errorf("jobs: taking the River migration lock: %w", err)
		}
		defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", pgRiverMigrationLock)
		if res, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return nil, fmt.Errorf("jobs: River migrations: %w", err)
		}
	default:
		return nil, fmt.Errorf("jobs: unsupported dialect %q", st.Dialect)
	}
	var applied []int
	for _, v := range res.Versions {
		applied = append(applied, v.Version)
	}
	return applied, nil
}

// Migrate applies River's migrations to the client's database (MigrateRiver
// on its store).
func (j *Jobs) Migrate(ctx context.Context) ([]int, error) { return MigrateRiver(ctx, j.st) }
