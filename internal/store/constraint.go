package store

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// IsConstraintViolation reports whether err is a database's refusal of a
// row that breaks a constraint of its table (a NOT NULL column, a unique
// or primary key, a check or a foreign key), from a statement run outside
// Ent, whose own errors say so with ent.IsConstraintError.
func IsConstraintViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return len(pg.Code) == 5 && pg.Code[:2] == "23" // integrity_constraint_violation
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()&0xff == sqliteConstraint
	}
	return false
}

// sqliteConstraint is SQLite's primary result code for a constraint
// violation.
const sqliteConstraint = 19
