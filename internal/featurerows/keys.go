package featurerows

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// Querier is a *sql.DB or a *sql.Tx: KeyCheck runs on either, so an
// import can check the rows it has written and not yet committed.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// KeyViolation says why fields do not identify the rows of a version:
// Field is the first of them some row has no value of (Nulls rows), and
// Duplicate the values of the fields that several rows share. The zero
// value means the fields are a key.
type KeyViolation struct {
	Field     string
	Nulls     int64
	Duplicate []any
}

// OK reports whether the fields are a key.
func (k KeyViolation) OK() bool { return k.Field == "" && k.Duplicate == nil }

// KeyCheck checks over the stored rows of a version that fields, taken
// together, have a value in every row and never the same values in two.
func KeyCheck(ctx context.Context, st *store.Store, db Querier, versionID int, fields []string) (KeyViolation, error) {
	if len(fields) == 0 {
		return KeyViolation{}, errors.New("features: a key needs at least one field")
	}
	exprs := make([]string, len(fields))
	args := make([]any, len(fields))
	for i, f := range fields {
		exprs[i], args[i] = attrExpr(st, f)
	}
	for i, f := range fields {
		var n int64
		err := db.QueryRowContext(ctx, q(st, "SELECT count(*) FROM features WHERE version_id = ? AND "+exprs[i]+" IS NULL"),
			versionID, args[i]).Scan(&n)
		if err != nil {
			return KeyViolation{}, fmt.Errorf("features: null values of %q in version %d: %w", f, versionID, err)
		}
		if n > 0 {
			return KeyViolation{Field: f, Nulls: n}, nil
		}
	}
	cols := make([]string, len(fields))
	sel := make([]string, len(fields))
	for i := range fields {
		cols[i] = fmt.Sprintf("k%d", i)
		sel[i] = exprs[i] + " AS " + cols[i]
	}
	query := "SELECT " + strings.Join(cols, ", ") + " FROM (SELECT " + strings.Join(sel, ", ") +
		" FROM features WHERE version_id = ?) t GROUP BY " + strings.Join(cols, ", ") + " HAVING count(*) > 1 LIMIT 1"
	dup := make([]any, len(fields))
	ptrs := make([]any, len(fields))
	for i := range dup {
		ptrs[i] = &dup[i]
	}
	err := db.QueryRowContext(ctx, q(st, query), append(args, versionID)...).Scan(ptrs...)
	if errors.Is(err, sql.ErrNoRows) {
		return KeyViolation{}, nil
	}
	if err != nil {
		return KeyViolation{}, fmt.Errorf("features: repeated values of %q in version %d: %w", fields, versionID, err)
	}
	for i, v := range dup {
		if b, ok := v.([]byte); ok {
			dup[i] = string(b)
		}
	}
	return KeyViolation{Duplicate: dup}, nil
}

// attrExpr is the SQL reading attribute name of a row's attrs as a
// scalar (NULL when absent or null), with its one argument.
func attrExpr(st *store.Store, name string) (string, any) {
	if st.Dialect == dialect.Postgres {
		return "(attrs->>(?::text))", name
	}
	return "json_extract(attrs, ?)", `$."` + strings.ReplaceAll(name, `"`, `\"`) + `"`
}
