package featurerows

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// On PostgreSQL the features table is partitioned by version (migration
// 20261202040000): version v's rows are the table features_v<v>. A bulk
// write into a version that has none yet (a new import, a draft's copy of
// its published rows) fills a new table without indexes and attaches it
// at the end, so PostgreSQL builds the version's indexes once, sorted,
// rather than inserting each row into shared B-trees; bench/import
// measured the difference. Rows of a version that already has its
// partition go through the parent table.

// partitionName is the table holding version v's rows.
func partitionName(v int64) string { return "features_v" + strconv.FormatInt(v, 10) }

// execQuerier is a *sql.Tx or a *sql.DB.
type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// openPartition prepares a bulk write of version v on tx: it returns the
// table to write into, and whether that is a new partition, unattached
// and without indexes, which attachPartition must end on the same
// transaction.
func openPartition(ctx context.Context, tx execQuerier, v int64) (table string, fresh bool, err error) {
	name := partitionName(v)
	var exists bool
	if err := tx.QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&exists); err != nil {
		return "", false, fmt.Errorf("features: looking for the partition of version %d: %w", v, err)
	}
	if exists {
		return "features", false, nil
	}
	// LIKE copies the columns and the id's default (its sequence), and
	// neither the indexes nor the triggers: ATTACH adds both.
	if _, err := tx.ExecContext(ctx, "CREATE TABLE "+name+" (LIKE features INCLUDING DEFAULTS)"); err != nil {
		return "", false, fmt.Errorf("features: creating the partition of version %d: %w", v, err)
	}
	return name, true, nil
}

// attachPartition makes a table of openPartition version v's partition,
// which builds its indexes (PostgreSQL checks its rows against the
// version as it attaches it).
func attachPartition(ctx context.Context, tx execQuerier, v int64) error {
	q := "ALTER TABLE features ATTACH PARTITION " + partitionName(v) + " FOR VALUES IN (" + strconv.FormatInt(v, 10) + ")"
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("features: attaching the partition of version %d: %w", v, err)
	}
	return nil
}
