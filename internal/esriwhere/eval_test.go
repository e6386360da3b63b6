package esriwhere_test

import (
	"testing"

	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/esriwhere"
)

// Clauses parsed and evaluated with cql2.Match on features as
// ogcfeatures hands them to it (JSON-decoded properties), to show their
// meaning: LIKE wildcards and escapes, nulls, case functions, dates. The
// door gives each feature its id as OBJECTID (see the package doc).
func TestEvaluate(t *testing.T) {
	features := []map[string]any{
		{"OBJECTID": 1.0, "NAME": "Wellington", "Owner": "wellington", "pop": 215000.0, "area_km2": 290.0, "founded": "1840-01-22", "open": true},
		{"OBJECTID": 2.0, "NAME": "O'Brien's 100%", "Owner": nil, "pop": 12.0, "area_km2": 0.5, "founded": "2020-01-01T10:30:00Z", "open": false},
		{"OBJECTID": 3.0, "NAME": "auckland_1", "Owner": "AUCKLAND_1", "pop": nil, "area_km2": 1086.0, "founded": nil},
		{"OBJECTID": 4.0, "NAME": nil, "pop": 0.0, "founded": "2020-01-01"},
		{"OBJECTID": 5.0, "NAME": `back\slash`, "pop": -3.0, "founded": "2021-06-30T23:59:59Z"},
	}
	for _, tc := range []struct {
		where string
		want  []int // OBJECTIDs kept
	}{
		{"1=1", []int{1, 2, 3, 4, 5}},
		{"1=0", nil},
		{"OBJECTID > 3", []int{4, 5}},
		{"OBJECTID IN (1, 3, 99)", []int{1, 3}},
		{"OBJECTID NOT IN (1, 3)", []int{2, 4, 5}},
		{"OBJECTID <> 2 AND OBJECTID != 3", []int{1, 4, 5}},
		// LIKE: % a run, _ one character; nulls are unknown either way.
		{"NAME LIKE 'W%'", []int{1}},
		{"NAME LIKE 'w%'", nil},
		{"NAME NOT LIKE 'W%'", []int{2, 3, 5}},
		{"NAME LIKE '%_1'", []int{3}},
		{"NAME LIKE '______1'", nil},
		{"NAME LIKE '_________1'", []int{3}},
		{"NAME LIKE '%!_1' ESCAPE '!'", []int{3}},
		{"NAME LIKE 'auckland!_%' ESCAPE '!'", []int{3}},
		{"NAME LIKE '%100!%' ESCAPE '!'", []int{2}},
		{"NAME LIKE '%100\\%' ESCAPE '\\'", []int{2}},
		{"NAME LIKE '%O''Brien%'", []int{2}},
		{"NAME = 'O''Brien''s 100%'", []int{2}},
		{`NAME LIKE 'back\slash'`, []int{5}},
		{`NAME LIKE 'back\\slash' ESCAPE '\'`, []int{5}},
		// Case functions.
		{"UPPER(NAME) LIKE 'WELL%'", []int{1}},
		{"LOWER(NAME) LIKE 'well%'", []int{1}},
		{"UPPER(NAME) LIKE 'well%'", nil},
		{"UPPER(NAME) = UPPER(Owner)", []int{1, 3}},
		{"NOT UPPER(NAME) = 'wellington'", []int{1, 2, 3, 5}},
		{"UPPER(NAME) IN ('AUCKLAND_1', 'x')", []int{3}},
		{"NAME = Owner", nil},
		// Nulls: three-valued logic.
		{"NAME IS NULL", []int{4}},
		{"NAME IS NOT NULL", []int{1, 2, 3, 5}},
		{"Owner IS NULL", []int{2, 4, 5}},
		{"pop > 10", []int{1, 2}},
		{"NOT pop > 10", []int{4, 5}},
		{"pop > 10 OR pop IS NULL", []int{1, 2, 3}},
		{"NOT (pop > 10 AND NAME LIKE 'W%')", []int{2, 3, 4, 5}}, // 3: unknown AND false is false
		{"pop BETWEEN -5 AND 12", []int{2, 4, 5}},
		{"pop NOT BETWEEN -5 AND 12", []int{1}},
		{"pop = '12'", []int{2}},
		{"area_km2 >= 1.086e3", []int{3}},
		{"area_km2 < pop", []int{1, 2}},
		{"open = 1", []int{1}},
		{"open = FALSE", []int{2}},
		// Dates: DATE is midnight UTC, compared as an instant.
		{"founded < DATE '1900-01-01'", []int{1}},
		{"founded = DATE '2020-01-01'", []int{4}},
		{"founded > date '2020-01-01'", []int{2, 5}},
		{"founded >= TIMESTAMP '2020-01-01 10:30:00'", []int{2, 5}},
		{"founded BETWEEN DATE '2020-01-01' AND TIMESTAMP '2020-12-31 23:59:59'", []int{2, 4}},
		{"founded BETWEEN '2021-06-30' AND '2021-07-01'", []int{5}},
		{"founded IS NULL", []int{3}},
	} {
		e, err := esriwhere.Parse(tc.where, fields)
		if err != nil {
			t.Errorf("%s: %v", tc.where, err)
			continue
		}
		var got []int
		for _, p := range features {
			if e == nil || cql2.Match(e, &cql2.Feature{Props: p}) {
				got = append(got, int(p["OBJECTID"].(float64)))
			}
		}
		if !same(got, tc.want) {
			t.Errorf("%s (%s): %v, want %v", tc.where, show(e), got, tc.want)
		}
	}
}

func same(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
