package esriwhere_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/esriwhere"
)

// FuzzParse: no input panics, every refusal is an *Error, and what
// parses evaluates (also without panicking) on a sample feature.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"1=1", "1=0", "OBJECTID > 5", "OBJECTID IN (1,2,3)", "NAME = 'O''Brien'",
		"NAME LIKE 'A%'", "NAME LIKE 'a!%' ESCAPE '!'", "UPPER(NAME) LIKE 'A%'", "LOWER(Owner) = 'x'",
		"NOT (pop > 1 OR pop IS NULL)", "pop BETWEEN -1.5e3 AND .5", "NAME IS NOT NULL", "NAME <> 'a' AND pop != 2",
		"founded > DATE '2020-01-01'", "founded < TIMESTAMP '2020-01-01 00:00:00'", "open = TRUE", `"Zone Id" = N'z'`,
		"pop = '7'", "NAME = 42", "CURRENT_DATE > founded", "UPPER(NAME) IN ('A','b')",
		"' OR 1=1 --", "1=1; DROP TABLE x", "1=1 UNION SELECT 1", "((((1=1))))", "NAME = 'a\x00'", "\xff",
	} {
		f.Add(s)
	}
	sample := &cql2.Feature{Props: map[string]any{
		"OBJECTID": 1.0, "NAME": "Wellington", "Owner": nil, "pop": 3.0, "area_km2": 1.5,
		"founded": "2020-01-01", "open": true, "date": "2020-01-02T00:00:00Z", "Zone Id": "z",
	}}
	f.Fuzz(func(t *testing.T, where string) {
		e, err := esriwhere.Parse(where, fields)
		if err != nil {
			var we *esriwhere.Error
			if !errors.As(err, &we) {
				t.Fatalf("%q: %v is a %T, not an *Error", where, err, err)
			}
			if we.Pos < 0 || we.Pos > len(where)+1 || strings.TrimSpace(we.Msg) == "" {
				t.Fatalf("%q: position %d or message %q", where, we.Pos, we.Msg)
			}
			return
		}
		if e != nil {
			cql2.Match(e, sample)
			for _, name := range cql2.Properties(e) {
				if _, ok := fields[name]; !ok {
					t.Fatalf("%q: property %q is not a field", where, name)
				}
			}
		}
	})
}
