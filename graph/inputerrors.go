package graph

import (
	"context"
	"fmt"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/geopub/geopub/internal/apperr"
)

// inputError reports whether e is a failure to coerce an argument: a
// value the operation's validation let by but the argument's Go type
// refused (an enum value in the wrong case, which gqlparser's variable
// check accepts but ent's and gqlgen's enums do not; a Time that is not
// RFC 3339; a cursor or map of the wrong shape). gqlgen reports those
// before the field runs, in the context of the field's parent, on the
// path of the argument: the parent's path followed by the argument's
// name and the input fields within it. A resolver's error is on the
// field's own path.
func inputError(ctx context.Context, e *gqlerror.Error) bool {
	if e.Err == nil {
		return false
	}
	var parent ast.Path
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		parent = fc.Path()
	}
	if len(e.Path) <= len(parent) || !slices.Equal(e.Path[:len(parent)], parent) {
		return false
	}
	_, named := e.Path[len(parent)].(ast.PathName)
	return named
}

// asInputError is e as the caller's mistake: a BAD_REQUEST naming the
// argument path (for example "input.type") in its fields, as resolvers'
// own field errors do.
func asInputError(ctx context.Context, e *gqlerror.Error) *apperr.Error {
	var parent ast.Path
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		parent = fc.Path()
	}
	field := e.Path[len(parent):].String()
	return apperr.Field(field, fmt.Sprintf("%s: %s", field, e.Err.Error()))
}
