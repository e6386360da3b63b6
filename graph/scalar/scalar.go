// Package scalar holds the GraphQL scalars whose Go mapping Geopub
// writes itself, so that input the scalar cannot hold is refused as the
// caller's mistake (BAD_REQUEST) rather than surfacing as an internal
// error: an ID out of range or not a number is a bad request.
package scalar

import (
	"encoding/json"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/internal/apperr"
)

// MarshalIntID writes an integer ID as a GraphQL ID (a string).
func MarshalIntID(i int) graphql.Marshaler { return graphql.MarshalIntID(i) }

// UnmarshalIntID reads a GraphQL ID that must hold a (64-bit) integer: a
// string of digits or a JSON number. Anything else is apperr.Invalid.
func UnmarshalIntID(v any) (int, error) {
	var s string
	switch v := v.(type) {
	case int:
		return v, nil
	case int64:
		return int(v), nil
	case string:
		s = v
	case json.Number:
		s = string(v)
	default:
		return 0, apperr.New(apperr.Invalid, "An ID must be a string of digits, not %s.", kind(v))
	}
	id, err := strconv.Atoi(s)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, apperr.New(apperr.Invalid, "The ID %q is out of range.", clip(s))
		}
		return 0, apperr.New(apperr.Invalid, "The ID %q is not a number.", clip(s))
	}
	return id, nil
}

// kind names the JSON kind of v for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float32, float64:
		return "a fraction"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "a value of another type"
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
