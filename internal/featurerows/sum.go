package featurerows

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
)

// Sum is a row's content sum: the first 8 bytes of SHA-256 over its
// geometry (ISO WKB, nil as empty), a zero byte and its attributes as the
// Writer encodes them (keys sorted, numbers and strings in one form), as
// a signed integer. The Writer stores it with every row (the sum column),
// so two versions are compared 8 bytes a row and read in full only where
// sums differ (internal/versiondiff). Equal sums mean equal content (a
// collision needs 2^64 tries against a given row); sums that differ may
// still hold equal values (a row stored before sums existed), which a
// diff settles by comparing values.
func Sum(geom, attrs []byte) int64 {
	h := sha256.New()
	h.Write(geom)
	h.Write([]byte{0})
	h.Write(attrs)
	var b [sha256.Size]byte
	return int64(binary.BigEndian.Uint64(h.Sum(b[:0])))
}

// missingSums counts the rows of a version without a sum, from the partial
// index of those rows (feature_sum_missing), empty once all have one.
const missingSums = "SELECT count(*) FROM features WHERE version_id = ? AND sum IS NULL"

// FillSums gives a sum to every row of a version stored without one
// (before sums existed), from its attributes as the Writer would encode
// them now, and returns how many it filled. Versions written since have
// none to fill, and the check reads the empty partial index of rows
// without a sum.
func FillSums(ctx context.Context, st *store.Store, versionID int) (int64, error) {
	var missing int64
	if err := st.DB.QueryRowContext(ctx, q(st, missingSums), versionID).Scan(&missing); err != nil {
		return 0, fmt.Errorf("features: rows of version %d without a sum: %w", versionID, err)
	}
	if missing == 0 {
		return 0, nil
	}
	type fill struct {
		id  int64
		sum int64
	}
	var filled int64
	for {
		// In batches, each read then written in a transaction of its own,
		// so a large version does not hold the write lock for long.
		var batch []fill
		rows, err := st.DB.QueryContext(ctx, q(st, "SELECT id, geom, attrs FROM features WHERE version_id = ? AND sum IS NULL ORDER BY id LIMIT 5000"), versionID)
		if err != nil {
			return filled, fmt.Errorf("features: reading version %d: %w", versionID, err)
		}
		for rows.Next() {
			var (
				f           fill
				geom, attrs []byte
			)
			if err := rows.Scan(&f.id, &geom, &attrs); err != nil {
				rows.Close()
				return filled, fmt.Errorf("features: reading version %d: %w", versionID, err)
			}
			enc, err := canonicalAttrs(attrs)
			if err != nil {
				rows.Close()
				return filled, fmt.Errorf("features: version %d row %d: bad attributes: %w", versionID, f.id, err)
			}
			f.sum = Sum(geom, enc)
			batch = append(batch, f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return filled, fmt.Errorf("features: reading version %d: %w", versionID, err)
		}
		if len(batch) == 0 {
			return filled, nil
		}
		err = st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			stmt, err := tx.PrepareContext(ctx, q(st, "UPDATE features SET sum = ? WHERE version_id = ? AND id = ?"))
			if err != nil {
				return err
			}
			defer stmt.Close()
			for _, f := range batch {
				if _, err := stmt.ExecContext(ctx, f.sum, versionID, f.id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return filled, fmt.Errorf("features: filling sums of version %d: %w", versionID, err)
		}
		filled += int64(len(batch))
	}
}

// canonicalAttrs is stored attributes JSON as the Writer encodes it: the
// stored text of a row written before sums existed may differ in form
// (PostgreSQL's jsonb text has spaces and its own key order).
func canonicalAttrs(stored []byte) ([]byte, error) {
	if stored == nil {
		return nil, nil
	}
	m, err := decodeAttrs(stored)
	if err != nil || m == nil {
		return nil, err
	}
	return appendAttrs(nil, m)
}
