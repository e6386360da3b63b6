package cql2_test

import (
	"strings"
	"testing"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
)

func feature(props map[string]any, g geom.T) *cql2.Feature {
	return &cql2.Feature{Props: props, Geometry: func() geom.T { return g },
		IsGeometry: func(n string) bool { return n == "geometry" }}
}

func TestTextAndJSONAgree(t *testing.T) {
	square := geom.NewPolygonFlat(geom.XY, []float64{0, 0, 2, 0, 2, 2, 0, 2, 0, 0}, []int{10})
	f := feature(map[string]any{"name": "Lambton Quay", "rank": 3.0, "open": true, "when": "2021-05-01T10:00:00Z", "none": nil}, square)
	for _, tc := range []struct {
		text, json string
		want       bool
	}{
		{"rank = 3", `{"op":"=","args":[{"property":"rank"},3]}`, true},
		{"rank <> 3", `{"op":"<>","args":[{"property":"rank"},3]}`, false},
		{"rank >= 2.5 AND rank < 4", `{"op":"and","args":[{"op":">=","args":[{"property":"rank"},2.5]},{"op":"<","args":[{"property":"rank"},4]}]}`, true},
		{"rank > 5 OR name = 'Lambton Quay'", `{"op":"or","args":[{"op":">","args":[{"property":"rank"},5]},{"op":"=","args":[{"property":"name"},"Lambton Quay"]}]}`, true},
		{"NOT (rank > 5)", `{"op":"not","args":[{"op":">","args":[{"property":"rank"},5]}]}`, true},
		{"name LIKE 'Lamb%'", `{"op":"like","args":[{"property":"name"},"Lamb%"]}`, true},
		{"name LIKE 'L_mbton%Q'", `{"op":"like","args":[{"property":"name"},"L_mbton%Q"]}`, false},
		{"name NOT LIKE '%Quay'", `{"op":"not","args":[{"op":"like","args":[{"property":"name"},"%Quay"]}]}`, false},
		{"rank BETWEEN 1 AND 3", `{"op":"between","args":[{"property":"rank"},1,3]}`, true},
		{"rank NOT BETWEEN 1 AND 3", `{"op":"not","args":[{"op":"between","args":[{"property":"rank"},1,3]}]}`, false},
		{"name IN ('a', 'Lambton Quay')", `{"op":"in","args":[{"property":"name"},["a","Lambton Quay"]]}`, true},
		{"rank NOT IN (1, 2)", `{"op":"not","args":[{"op":"in","args":[{"property":"rank"},[1,2]]}]}`, true},
		{"none IS NULL", `{"op":"isNull","args":[{"property":"none"}]}`, true},
		{"missing IS NOT NULL", `{"op":"not","args":[{"op":"isNull","args":[{"property":"missing"}]}]}`, false},
		{"none = 1", `{"op":"=","args":[{"property":"none"},1]}`, false},
		{"NOT (none = 1)", `{"op":"not","args":[{"op":"=","args":[{"property":"none"},1]}]}`, false},
		{"open = TRUE", `{"op":"=","args":[{"property":"open"},true]}`, true},
		{"when > TIMESTAMP('2021-01-01T00:00:00Z')", `{"op":">","args":[{"property":"when"},{"timestamp":"2021-01-01T00:00:00Z"}]}`, true},
		{"when = DATE('2021-05-01')", `{"op":"=","args":[{"property":"when"},{"date":"2021-05-01"}]}`, true},
		{"S_INTERSECTS(geometry, POINT(1 1))", `{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Point","coordinates":[1,1]}]}`, true},
		{"S_INTERSECTS(geometry, POINT(3 3))", `{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Point","coordinates":[3,3]}]}`, false},
		{"S_INTERSECTS(geometry, BBOX(1.5, 1.5, 5, 5))", `{"op":"s_intersects","args":[{"property":"geometry"},{"bbox":[1.5,1.5,5,5]}]}`, true},
		{"S_INTERSECTS(geometry, LINESTRING(-1 1, 3 1))", `{"op":"s_intersects","args":[{"property":"geometry"},{"type":"LineString","coordinates":[[-1,1],[3,1]]}]}`, true},
		{"S_INTERSECTS(geometry, POLYGON((-5 -5, 5 -5, 5 5, -5 5, -5 -5)))", `{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[-5,-5],[5,-5],[5,5],[-5,5],[-5,-5]]]}]}`, true},
		{"S_INTERSECTS(geometry, MULTIPOINT((9 9), (2 2)))", `{"op":"s_intersects","args":[{"property":"geometry"},{"type":"MultiPoint","coordinates":[[9,9],[2,2]]}]}`, true},
		{"S_INTERSECTS(geometry, POLYGON((-5 -5, 5 -5, 5 5, -5 5, -5 -5), (-4 -4, 4 -4, 4 4, -4 4, -4 -4)))", "", false},
		{"\"name\" = 'Lambton Quay' AND rank = -3", "", false},
		{"name = 'It''s'", "", false},
	} {
		te, err := cql2.ParseText(tc.text)
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		if got := cql2.Match(te, f); got != tc.want {
			t.Errorf("text %s: %v, want %v", tc.text, got, tc.want)
		}
		if tc.json == "" {
			continue
		}
		je, err := cql2.ParseJSON([]byte(tc.json))
		if err != nil {
			t.Errorf("%s: %v", tc.json, err)
			continue
		}
		if got := cql2.Match(je, f); got != tc.want {
			t.Errorf("json %s: %v, want %v", tc.json, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{"", "rank =", "rank = 'x", "rank ! 3", "(rank = 1", "rank = 1 rank", "S_CONTAINS(geometry)",
		"rank BETWEEN 1", "name IN ()", "LOWER(name) = 'a'", "S_INTERSECTS(geometry, POINT(1))", "S_INTERSECTS(geometry, BBOX(1,2,3))",
		"when = TIMESTAMP('yesterday')", strings.Repeat("NOT ", 200) + "rank = 1", strings.Repeat("(", 200) + "rank = 1" + strings.Repeat(")", 200)} {
		if _, err := cql2.ParseText(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
	for _, s := range []string{"", "{", `{"op":"="}`, `{"op":"=","args":[1]}`, `{"op":"s_crosses","args":[1,2]}`, `[1]`, `{"op":"in","args":[{"property":"a"},1]}`} {
		if _, err := cql2.ParseJSON([]byte(s)); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestProperties(t *testing.T) {
	e, err := cql2.ParseText("a = 1 AND (b LIKE 'x' OR NOT c IS NULL) AND S_INTERSECTS(geometry, BBOX(0,0,1,1))")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cql2.Properties(e), ",")
	if got != "a,b,c,geometry" {
		t.Errorf("properties %s", got)
	}
}

// The parsers never panic, and what they accept evaluates without
// panicking.
func FuzzParseText(f *testing.F) {
	for _, s := range []string{"rank = 3 AND name LIKE 'a%'", "S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 0)))",
		"NOT (a IN (1, 2)) OR b BETWEEN 1 AND 2", "when > TIMESTAMP('2021-01-01T00:00:00Z')", "S_INTERSECTS(geometry, GEOMETRYCOLLECTION(POINT(1 1), MULTIPOINT(1 1, 2 2)))"} {
		f.Add(s)
	}
	feat := feature(map[string]any{"a": 1.0, "b": "x", "rank": 3.0, "name": "abc"}, geom.NewPointFlat(geom.XY, []float64{0.5, 0.5}))
	f.Fuzz(func(t *testing.T, s string) {
		if e, err := cql2.ParseText(s); err == nil {
			cql2.Match(e, feat)
		}
		if e, err := cql2.ParseJSON([]byte(s)); err == nil {
			cql2.Match(e, feat)
		}
	})
}
