package cql2_test

import (
	"strings"
	"testing"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/relate"
)

// parseBoth parses a filter in both encodings, failing the test on an
// error.
func parseBoth(t *testing.T, text, json string) (cql2.Expr, cql2.Expr) {
	t.Helper()
	te, err := cql2.ParseText(text)
	if err != nil {
		t.Fatalf("text %s: %v", text, err)
	}
	je, err := cql2.ParseJSON([]byte(json))
	if err != nil {
		t.Fatalf("json %s: %v", json, err)
	}
	return te, je
}

// OGC 21-065r2, 7.5 and 7.6: "CASEI(...)" and "ACCENTI(...)" take a
// character expression (a string, a property, or CASEI or ACCENTI of
// one) wherever a string may stand, in text as in JSON.
func TestCaseIAccentIParse(t *testing.T) {
	f := feature(map[string]any{"name": "Straße Ärger", "road": "Οδος", "rank": 3.0}, nil)
	for _, tc := range []struct {
		text, json string
		want       bool
	}{
		{"CASEI(name) = casei('STRASSE ärger')", `{"op":"=","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["STRASSE ärger"]}]}`, true},
		{"CASEI(name) <> CASEI('straße ÄRGER')", `{"op":"<>","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["straße ÄRGER"]}]}`, false},
		{"CASEI(name) LIKE CASEI('str%')", `{"op":"like","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["str%"]}]}`, true},
		{"CASEI(road) IN (CASEI('ΟΔΟΣ'), CASEI('Straße'))", `{"op":"in","args":[{"op":"casei","args":[{"property":"road"}]},[{"op":"casei","args":["ΟΔΟΣ"]},{"op":"casei","args":["Straße"]}]]}`, true},
		{"CASEI(name) BETWEEN CASEI('S') AND CASEI('T')", `{"op":"between","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["S"]},{"op":"casei","args":["T"]}]}`, true},
		// ACCENTI({queryable}) = accenti('äöüéáí') and <> accenti('aoueai')
		// give the same answer (A.6.1).
		{"ACCENTI(name) = ACCENTI('Straße Arger')", `{"op":"=","args":[{"op":"accenti","args":[{"property":"name"}]},{"op":"accenti","args":["Straße Arger"]}]}`, true},
		{"ACCENTI(name) = 'Straße Arger'", `{"op":"=","args":[{"op":"accenti","args":[{"property":"name"}]},"Straße Arger"]}`, true},
		{"name = ACCENTI('Straße Ärger')", `{"op":"=","args":[{"property":"name"},{"op":"accenti","args":["Straße Ärger"]}]}`, false},
		// A decomposed "A" + U+0308 is the same letter.
		{"ACCENTI(name) LIKE ACCENTI('%A\u0308rger')", `{"op":"like","args":[{"op":"accenti","args":[{"property":"name"}]},{"op":"accenti","args":["%A\u0308rger"]}]}`, true},
		// A.6.3: ACCENTI(CASEI(...)) nests.
		{"ACCENTI(CASEI(name)) = accenti(casei('STRASSE ARGER'))", `{"op":"=","args":[{"op":"accenti","args":[{"op":"casei","args":[{"property":"name"}]}]},{"op":"accenti","args":[{"op":"casei","args":["STRASSE ARGER"]}]}]}`, true},
		{"CASEI(ACCENTI(\"name\")) LIKE casei(accenti('%ärg%'))", `{"op":"like","args":[{"op":"casei","args":[{"op":"accenti","args":[{"property":"name"}]}]},{"op":"casei","args":[{"op":"accenti","args":["%ärg%"]}]}]}`, true},
	} {
		te, je := parseBoth(t, tc.text, tc.json)
		if got := cql2.Match(te, f); got != tc.want {
			t.Errorf("text %s: %v, want %v", tc.text, got, tc.want)
		}
		if got := cql2.Match(je, f); got != tc.want {
			t.Errorf("json %s: %v, want %v", tc.json, got, tc.want)
		}
	}
	if got := cql2.Properties(must(cql2.ParseText("ACCENTI(CASEI(name)) = 'x'"))); len(got) != 1 || got[0] != "name" {
		t.Errorf("properties under ACCENTI(CASEI()): %v", got)
	}
}

func must(e cql2.Expr, err error) cql2.Expr {
	if err != nil {
		panic(err)
	}
	return e
}

// OGC 21-065r2, /req/spatial-functions: S_INTERSECTS, S_EQUALS,
// S_DISJOINT, S_TOUCHES, S_WITHIN, S_OVERLAPS, S_CROSSES, S_CONTAINS, in
// text and JSON, the feature's geometry first.
func TestSpatialFunctionsParse(t *testing.T) {
	if !relate.Available() {
		t.Skip("GDAL has no GEOS")
	}
	sq := geom.NewPolygonFlat(geom.XY, []float64{2, 2, 4, 2, 4, 4, 2, 4, 2, 2}, []int{10})
	f := feature(nil, sq)
	for _, tc := range []struct {
		text, json string
		want       bool
	}{
		{"S_WITHIN(geometry, BBOX(0, 0, 10, 10))", `{"op":"s_within","args":[{"property":"geometry"},{"bbox":[0,0,10,10]}]}`, true},
		{"s_contains(geometry, POINT(3 3))", `{"op":"S_CONTAINS","args":[{"property":"geometry"},{"type":"Point","coordinates":[3,3]}]}`, true},
		{"S_CONTAINS(geometry, BBOX(0, 0, 10, 10))", `{"op":"s_contains","args":[{"property":"geometry"},{"bbox":[0,0,10,10]}]}`, false},
		{"S_TOUCHES(geometry, POINT(4 3))", `{"op":"s_touches","args":[{"property":"geometry"},{"type":"Point","coordinates":[4,3]}]}`, true},
		{"S_OVERLAPS(geometry, BBOX(3, 3, 6, 6))", `{"op":"s_overlaps","args":[{"property":"geometry"},{"bbox":[3,3,6,6]}]}`, true},
		{"S_EQUALS(geometry, POLYGON((4 4, 2 4, 2 2, 4 2, 4 4)))", `{"op":"s_equals","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[4,4],[2,4],[2,2],[4,2],[4,4]]]}]}`, true},
		{"S_DISJOINT(geometry, POINT(5 5))", `{"op":"s_disjoint","args":[{"property":"geometry"},{"type":"Point","coordinates":[5,5]}]}`, true},
		{"S_DISJOINT(geometry, POINT(4 4))", `{"op":"s_disjoint","args":[{"property":"geometry"},{"type":"Point","coordinates":[4,4]}]}`, false},
		{"S_CROSSES(LINESTRING(0 3, 10 3), geometry)", `{"op":"s_crosses","args":[{"type":"LineString","coordinates":[[0,3],[10,3]]},{"property":"geometry"}]}`, true},
		{"NOT S_INTERSECTS(geometry, POINT(9 9)) AND S_WITHIN(POINT(3 3), geometry)", `{"op":"and","args":[{"op":"not","args":[{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Point","coordinates":[9,9]}]}]},{"op":"s_within","args":[{"type":"Point","coordinates":[3,3]},{"property":"geometry"}]}]}`, true},
	} {
		te, je := parseBoth(t, tc.text, tc.json)
		if got := cql2.Match(te, f); got != tc.want {
			t.Errorf("text %s: %v, want %v", tc.text, got, tc.want)
		}
		if got := cql2.Match(je, f); got != tc.want {
			t.Errorf("json %s: %v, want %v", tc.json, got, tc.want)
		}
	}
}

// Malformed uses of the functions are refused with a message naming the
// problem.
func TestFunctionErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"CASEI(3) = '3'", "CASEI at 1 takes a string or a property"},
		{"CASEI(TRUE) = 'x'", "takes a string or a property"},
		{"CASEI(name, 'x') = 'x'", "takes one argument"},
		{"CASEI() = 'x'", "takes one argument"},
		{"ACCENTI(DATE('2020-01-01')) = 'x'", "ACCENTI at 1 takes a string or a property"},
		{"UPPER(name) = 'X'", "function UPPER at 1 is not supported"},
		{"S_WITHIN(geometry)", "S_WITHIN takes two geometries"},
		{"S_WITHIN(geometry, POINT(1 1), POINT(2 2))", "S_WITHIN takes two geometries"},
		{"S_NEAR(geometry, POINT(1 1))", "S_NEAR is not a spatial function"},
		{"T_BEFORE(when, TIMESTAMP('2020-01-01T00:00:00Z'))", "temporal functions are not offered"},
	} {
		_, err := cql2.ParseText(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("text %s: %v, want %q", tc.text, err, tc.want)
		}
	}
	for _, tc := range []struct{ json, want string }{
		{`{"op":"=","args":[{"op":"casei","args":[3]},"3"]}`, "casei takes a string or a property"},
		{`{"op":"=","args":[{"op":"casei","args":[{"property":"name"},"x"]},"x"]}`, "casei takes one argument"},
		{`{"op":"=","args":[{"op":"accenti","args":"x"},"x"]}`, "accenti takes one argument"},
		{`{"op":"casei","args":["x"]}`, "casei gives a string, not a predicate"},
		{`{"op":"s_within","args":[{"property":"geometry"}]}`, "s_within takes 2 geometries"},
		{`{"op":"s_touches","args":[{"property":"geometry"},"POINT(1 1)"]}`, "s_touches takes two geometries"},
		{`{"op":"s_near","args":[{"property":"geometry"},{"bbox":[0,0,1,1]}]}`, "s_near is not a spatial function"},
	} {
		_, err := cql2.ParseJSON([]byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("json %s: %v, want %q", tc.json, err, tc.want)
		}
	}
}
