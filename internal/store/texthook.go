package store

import (
	"context"
	"errors"
	"strings"

	entgo "entgo.io/ent"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/textrules"
)

// textHook is the storage boundary's guard on text, installed on every
// client Open returns: before a mutation runs, every string it sets (plain,
// list and JSON-valued fields alike) must pass textrules.Check; after it,
// a failure that is the caller's input (Ent's validators, such as a
// schema's MaxLen, or the database refusing a value as too long or not
// valid text) becomes an Invalid error naming the field, never an
// internal error.
func textHook(next entgo.Mutator) entgo.Mutator {
	return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
		for _, name := range m.Fields() {
			v, _ := m.Field(name)
			if err := textrules.CheckValue(name, v); err != nil {
				return nil, err
			}
		}
		v, err := next.Mutate(ctx, m)
		if err != nil {
			return v, inputError(err)
		}
		return v, nil
	})
}

// inputError turns the storage failures that are bad input into Invalid
// errors and returns any other error as it is.
func inputError(err error) error {
	var ve *ent.ValidationError
	if errors.As(err, &ve) {
		msg := "Ensure this value is valid."
		switch cause := ve.Unwrap().Error(); {
		case strings.Contains(cause, "greater than the required length"):
			msg = "Ensure this value is not longer than the limit."
		case strings.Contains(cause, "less than the required length"):
			msg = "This field may not be blank."
		case strings.Contains(cause, "invalid enum value"):
			msg = "Select a valid choice."
		}
		return apperr.WrapField(err, ve.Name, msg)
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "22001": // string_data_right_truncation
			return apperr.WrapField(err, columnOf(pg), "Ensure this value is not longer than the limit.")
		case "22021", "22P05": // invalid byte sequence, untranslatable character (\u0000 in jsonb)
			return apperr.WrapField(err, columnOf(pg), "Must be valid text without null characters.")
		}
	}
	return err
}

func columnOf(pg *pgconn.PgError) string {
	if pg.ColumnName != "" {
		return pg.ColumnName
	}
	return "body"
}
