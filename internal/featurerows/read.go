package featurerows

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// q rewrites ? placeholders to $n on PostgreSQL.
func q(st *store.Store, query string) string {
	if st.Dialect != dialect.Postgres {
		return query
	}
	out := make([]byte, 0, len(query)+8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			out = append(out, '$')
			out = fmt.Appendf(out, "%d", n)
			continue
		}
		out = append(out, query[i])
	}
	return string(out)
}

// DeleteVersion removes every row of a layer version on tx, and its key
// order (KeyOrder), so an import can restart cleanly.
func DeleteVersion(ctx context.Context, st *store.Store, tx *sql.Tx, versionID int) error {
	if _, err := tx.ExecContext(ctx, q(st, "DELETE FROM features WHERE version_id = ?"), versionID); err != nil {
		return fmt.Errorf("features: deleting rows of version %d: %w", versionID, err)
	}
	return deleteKeyOrder(ctx, st, tx, versionID)
}

// Count returns the number of rows of a layer version.
func Count(ctx context.Context, st *store.Store, versionID int) (int64, error) {
	var n int64
	if err := st.DB.QueryRowContext(ctx, q(st, "SELECT count(*) FROM features WHERE version_id = ?"), versionID).Scan(&n); err != nil {
		return 0, fmt.Errorf("features: counting rows of version %d: %w", versionID, err)
	}
	return n, nil
}

// Extent returns the bounding box [minx, miny, maxx, maxy] of a layer
// version's geometries; ok is false when none has one.
func Extent(ctx context.Context, st *store.Store, versionID int) (box [4]float64, ok bool, err error) {
	return extent(ctx, st, st.DB, versionID)
}

// Read streams the rows of a layer version in fid order (insertion order
// among equal fids) to fn, stopping at fn's first error, which it returns
// as is. Each Row is fn's to keep.
func Read(ctx context.Context, st *store.Store, versionID int, fn func(Row) error) error {
	rows, err := st.DB.QueryContext(ctx, q(st, "SELECT fid, geom, attrs FROM features WHERE version_id = ? ORDER BY fid, id"), versionID)
	if err != nil {
		return fmt.Errorf("features: reading version %d: %w", versionID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Row
		var attrs []byte
		if err := rows.Scan(&r.FID, &r.Geom, &attrs); err != nil {
			return fmt.Errorf("features: reading version %d: %w", versionID, err)
		}
		if r.Attrs, err = decodeAttrs(attrs); err != nil {
			return fmt.Errorf("features: version %d FID %d: bad attributes: %w", versionID, r.FID, err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("features: reading version %d: %w", versionID, err)
	}
	return nil
}

// RawRow is a feature as stored: WKB, attributes JSON and bounding box.
// Its slices are valid only during the callback that receives it.
type RawRow struct {
	FID   int64
	Geom  []byte
	Attrs []byte
	// Box is [minx, miny, maxx, maxy]; HasBox is false without geometry.
	Box    [4]float64
	HasBox bool
}

// ReadRaw streams the rows of a layer version as stored, without decoding
// their attributes: the fast path for building indexes.
func ReadRaw(ctx context.Context, st *store.Store, versionID int, fn func(*RawRow) error) error {
	if st.Dialect == dialect.Postgres {
		return readRawPG(ctx, st, versionID, fn)
	}
	rows, err := st.DB.QueryContext(ctx, q(st, "SELECT fid, geom, attrs, minx, miny, maxx, maxy FROM features WHERE version_id = ? ORDER BY fid, id"), versionID)
	if err != nil {
		return fmt.Errorf("features: reading version %d: %w", versionID, err)
	}
	defer rows.Close()
	var (
		r           RawRow
		geom, attrs sql.RawBytes
		box         [4]sql.NullFloat64
	)
	for rows.Next() {
		if err := rows.Scan(&r.FID, &geom, &attrs, &box[0], &box[1], &box[2], &box[3]); err != nil {
			return fmt.Errorf("features: reading version %d: %w", versionID, err)
		}
		r.Geom, r.Attrs = geom, attrs
		r.HasBox = box[0].Valid && box[1].Valid && box[2].Valid && box[3].Valid
		for i := range box {
			r.Box[i] = box[i].Float64
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("features: reading version %d: %w", versionID, err)
	}
	return nil
}
