package featurerows

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// ExtentTx is Extent read inside a transaction, so it sees rows the
// transaction wrote and has not committed yet.
func ExtentTx(ctx context.Context, st *store.Store, tx *sql.Tx, versionID int) (box [4]float64, ok bool, err error) {
	return extent(ctx, st, tx, versionID)
}

// rowQuerier is a *sql.DB or a *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// extent reads the bounding box of a version's rows through db.
func extent(ctx context.Context, st *store.Store, db rowQuerier, versionID int) (box [4]float64, ok bool, err error) {
	var b [4]sql.NullFloat64
	err = db.QueryRowContext(ctx, q(st, "SELECT min(minx), min(miny), max(maxx), max(maxy) FROM features WHERE version_id = ?"), versionID).
		Scan(&b[0], &b[1], &b[2], &b[3])
	if err != nil {
		return box, false, fmt.Errorf("features: extent of version %d: %w", versionID, err)
	}
	for i := range b {
		if !b[i].Valid {
			return [4]float64{}, false, nil
		}
		box[i] = b[i].Float64
	}
	return box, true, nil
}

// CopyVersion gives version to a copy of every row of version from, in one
// statement on tx: a new draft starts with the published features.
// On PostgreSQL a version without rows yet gets them in a partition of
// its own, filled bare and then attached (partitions_pg.go).
func CopyVersion(ctx context.Context, st *store.Store, tx *sql.Tx, from, to int) error {
	table, fresh := "features", false
	if st.Dialect == dialect.Postgres {
		var err error
		if table, fresh, err = openPartition(ctx, tx, int64(to)); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, q(st, `INSERT INTO `+table+` (version_id, fid, geom, attrs, minx, miny, maxx, maxy, cell, sum)
		SELECT ?, fid, geom, attrs, minx, miny, maxx, maxy, cell, sum FROM features WHERE version_id = ? ORDER BY id`), to, from)
	if err != nil {
		return fmt.Errorf("features: copying version %d to %d: %w", from, to, err)
	}
	if fresh {
		return attachPartition(ctx, tx, int64(to))
	}
	return nil
}
