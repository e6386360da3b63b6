// Package textrules holds the rules every piece of text Geopub accepts must
// pass, whichever door it came in by: valid UTF-8, no NUL character, no
// unpaired UTF-16 surrogate escape in JSON, and the length cap of search
// text. A broken rule is an apperr Invalid error naming the field, so it is
// a 400 (REST) or BAD_REQUEST (GraphQL), never a failure of the database.
//
// The rules are applied in three places, each the one door of its kind:
// the store's mutation hook checks every string of every Ent mutation
// (internal/store), search resolvers check q through Query (graph), and
// the JSON decoders of both front doors check raw bodies with CheckJSON
// before Go's decoder turns an unpaired surrogate into U+FFFD. Per-field
// length caps of stored text are the MaxLen of the Ent schema, checked by
// Ent's validators, whose failures the same hook turns into these errors.
package textrules

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/geopub/geopub/internal/apperr"
)

// MaxQuery is the most characters search text (q) may have. Longer text is
// refused rather than cut, so the caller learns the limit; it also bounds
// the LIKE patterns a search builds (SQLite refuses patterns above 50,000
// bytes) and the size of the Link header that echoes q.
const MaxQuery = 200

// MaxFilter is the most characters a string of a GraphQL where filter
// (nameContainsFold, titleEQ, ...) may have: room for any stored title,
// and far below SQLite's 50,000-byte limit on LIKE patterns.
const MaxFilter = 1000

// Check returns an Invalid error naming field when s is not valid UTF-8 or
// holds a NUL character, nil otherwise.
func Check(field, s string) error {
	if !utf8.ValidString(s) {
		return apperr.Field(field, "Must be valid UTF-8 text.")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return apperr.Field(field, "Null characters are not allowed.")
	}
	return nil
}

// Required returns s trimmed of surrounding space, refusing blank text
// with an Invalid error naming field: message is "This field is
// required." on a create, "This field may not be blank." on an edit.
func Required(field, s, message string) (string, error) {
	if s = strings.TrimSpace(s); s == "" {
		return "", apperr.Field(field, message)
	}
	return s, nil
}

// Storable returns message text the service writes itself (logs, error
// messages quoting file names) in a form that passes Check: invalid UTF-8
// and NUL characters become U+FFFD. It is for display text only, never for
// values that name something, such as a path.
func Storable(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// Query checks search text: the common rules and MaxQuery. A nil q passes.
func Query(field string, q *string) error {
	if q == nil {
		return nil
	}
	if err := Check(field, *q); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(*q); n > MaxQuery {
		return apperr.Field(field, fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", MaxQuery, n))
	}
	return nil
}

// Filter checks every string in a filter value v (such as an Ent where
// input): the common rules and MaxFilter. The error names field.
func Filter(field string, v any) error {
	return walk(field, reflect.ValueOf(v), 0, MaxFilter)
}

// maxDepth bounds the walk of nested values; deeper values are not
// inspected (stored JSON is decoded from bounded request bodies).
const maxDepth = 64

// CheckValue applies Check to every string in v: v itself when it is a
// string (of any named string type), and the strings in its elements,
// map keys and values and struct fields, so JSON-valued fields are covered
// too. The error names field.
func CheckValue(field string, v any) error {
	return walk(field, reflect.ValueOf(v), 0, 0)
}

// walk checks the strings in v; max, when above 0, caps their characters.
func walk(field string, v reflect.Value, depth, max int) error {
	if !v.IsValid() || depth > maxDepth {
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		if err := Check(field, v.String()); err != nil {
			return err
		}
		if n := utf8.RuneCountInString(v.String()); max > 0 && n > max {
			return apperr.Field(field, fmt.Sprintf("Ensure each text has at most %d characters (one has %d).", max, n))
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walk(field, v.Elem(), depth+1, max)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes, such as WKB: not text
		}
		for i := range v.Len() {
			if err := walk(field, v.Index(i), depth+1, max); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := walk(field, it.Key(), depth+1, max); err != nil {
				return err
			}
			if err := walk(field, it.Value(), depth+1, max); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if err := walk(field, v.Field(i), depth+1, max); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
