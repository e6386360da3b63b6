package featurerows

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// KeyRow is a row's place in a key order (ScanKeys): the text of its key
// fields' values, its row id and its content sum (Sum).
type KeyRow struct {
	// Key holds the values of the key fields as text (an integer 42 as
	// "42"); nil when some field has no value, or when ordering by sum.
	Key []string
	ID  int64
	Sum int64
}

// CompareKeys orders two keys as ScanKeys does: a nil key first, then
// field by field by the bytes of their text.
func CompareKeys(a, b []string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// keyBatch is the number of rows ScanKeys hands over at a time.
const keyBatch = 2048

// ScanKeys streams (key, id, sum) of every row of a version in key order,
// in batches that are fn's to keep: ordered by the text of the values of
// fields (bytes, not a locale's collation; rows missing any of them
// first), then by id; with no fields, by sum, then id. Rows stored
// without a sum must have been given one first (FillSums). The database
// sorts: the rows are never all in memory here.
func ScanKeys(ctx context.Context, st *store.Store, versionID int, fields []string, fn func([]KeyRow) error) error {
	var (
		sel   []string
		order []string
		args  []any
	)
	for i, f := range fields {
		expr, arg := keyText(st, f)
		col := "k" + strconv.Itoa(i)
		sel = append(sel, expr+" AS "+col)
		args = append(args, arg...)
		if st.Dialect == dialect.Postgres {
			order = append(order, col+" NULLS FIRST")
		} else {
			order = append(order, col)
		}
	}
	if len(fields) == 0 {
		order = append(order, "sum")
	}
	sel = append(sel, "id", "coalesce(sum, 0)")
	order = append(order, "id")
	query := q(st, "SELECT "+strings.Join(sel, ", ")+" FROM features WHERE version_id = ? ORDER BY "+strings.Join(order, ", "))
	args = append(args, versionID)

	run := func(db interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}) error {
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("features: ordering version %d by %q: %w", versionID, fields, err)
		}
		defer rows.Close()
		keys := make([]sql.NullString, len(fields))
		dest := make([]any, 0, len(fields)+2)
		for i := range keys {
			dest = append(dest, &keys[i])
		}
		var r KeyRow
		dest = append(dest, &r.ID, &r.Sum)
		batch := make([]KeyRow, 0, keyBatch)
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return fmt.Errorf("features: ordering version %d: %w", versionID, err)
			}
			row := KeyRow{ID: r.ID, Sum: r.Sum}
			if len(fields) > 0 {
				row.Key = make([]string, len(fields))
				for i, k := range keys {
					if !k.Valid {
						row.Key = nil
						break
					}
					row.Key[i] = k.String
				}
			}
			batch = append(batch, row)
			if len(batch) == keyBatch {
				if err := fn(batch); err != nil {
					return err
				}
				batch = make([]KeyRow, 0, keyBatch)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("features: ordering version %d: %w", versionID, err)
		}
		if len(batch) > 0 {
			return fn(batch)
		}
		return nil
	}
	if st.Dialect != dialect.Postgres {
		return run(st.DB)
	}
	// PostgreSQL sorts a million keys in memory given the room, instead
	// of in files with the default work_mem.
	tx, err := st.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("features: ordering version %d: %w", versionID, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	if _, err := tx.ExecContext(ctx, "SET LOCAL work_mem = '128MB'"); err != nil {
		return fmt.Errorf("features: ordering version %d: %w", versionID, err)
	}
	return run(tx)
}

// FIDKey, as a key field, names a row's FID (its source's feature id)
// rather than an attribute: the key of last resort of a shapefile, whose
// record numbers are its FIDs (internal/layerkey). No attribute has this
// name: the Writer drops zero bytes from text.
const FIDKey = "\x00fid"

// keyText is the SQL reading attribute name of a row as text (an integer
// as its digits, a string as itself, NULL when absent or null), or its
// FID for FIDKey, with its arguments.
func keyText(st *store.Store, name string) (string, []any) {
	switch {
	case name == FIDKey && st.Dialect == dialect.Postgres:
		return `(fid::text) COLLATE "C"`, nil
	case name == FIDKey:
		return "CAST(fid AS TEXT)", nil
	case st.Dialect == dialect.Postgres:
		return `(attrs->>(?::text)) COLLATE "C"`, []any{name}
	}
	expr, arg := attrExpr(st, name)
	return "CAST(" + expr + " AS TEXT)", []any{arg}
}

// RowsByID reads the rows of a version with the given row ids (as
// ScanKeys gives them), decoded as Read decodes them, by id. Ids of
// another version or of no row are absent from the answer.
func RowsByID(ctx context.Context, st *store.Store, versionID int, ids []int64) (map[int64]Row, error) {
	out := make(map[int64]Row, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500)
		var b strings.Builder
		args := make([]any, 0, n+1)
		args = append(args, versionID)
		b.WriteString(byIDPrefix(st))
		for i, id := range ids[:n] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('?')
			args = append(args, id)
		}
		b.WriteByte(')')
		rows, err := st.DB.QueryContext(ctx, q(st, b.String()), args...)
		if err != nil {
			return nil, fmt.Errorf("features: reading rows of version %d: %w", versionID, err)
		}
		for rows.Next() {
			var (
				id    int64
				r     Row
				attrs []byte
			)
			if err := rows.Scan(&id, &r.FID, &r.Geom, &attrs); err != nil {
				rows.Close()
				return nil, fmt.Errorf("features: reading rows of version %d: %w", versionID, err)
			}
			if r.Attrs, err = decodeAttrs(attrs); err != nil {
				rows.Close()
				return nil, fmt.Errorf("features: version %d FID %d: bad attributes: %w", versionID, r.FID, err)
			}
			out[id] = r
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("features: reading rows of version %d: %w", versionID, err)
		}
		ids = ids[n:]
	}
	return out, nil
}

// byIDPrefix starts RowsByID's query. On SQLite the version is tested
// with a unary plus, which keeps SQLite from using the (version_id, fid)
// index: without statistics its planner rates an index equality at ten
// rows, cheaper than the row id lookups of a long IN list, and then
// walks every row of the version for each batch (bench/diff: 13 of 20
// CPU seconds of a diff of two million-feature SQLite versions). On
// PostgreSQL the version picks the partition, and the primary key
// (version_id, id) serves the list.
func byIDPrefix(st *store.Store) string {
	if st.Dialect == dialect.Postgres {
		return "SELECT id, fid, geom, attrs FROM features WHERE version_id = ? AND id IN ("
	}
	return "SELECT id, fid, geom, attrs FROM features WHERE +version_id = ? AND id IN ("
}
