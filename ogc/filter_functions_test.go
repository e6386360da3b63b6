package ogc_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/relate"
)

// encoded is one filter in both CQL2 encodings.
type encoded struct{ text, json string }

// expectIDs runs a filter in each encoding (paged by 3) on a collection
// and compares the feature ids it keeps with want.
func (f *fixture) expectIDs(t *testing.T, collection string, q encoded, want []int64) {
	t.Helper()
	for lang, filter := range map[string]string{"cql2-text": q.text, "cql2-json": q.json} {
		if filter == "" {
			continue
		}
		got := f.ids(t, collection+"/items?limit=3&filter-lang="+lang+"&filter="+url.QueryEscape(filter))
		if !slices.Equal(got, want) {
			t.Errorf("%s %s: %v, want %v", lang, filter, got, want)
		}
	}
}

// pointIDs are the ids of the grid points (the fixture's "Point i") for
// the indexes is, in order.
func pointIDs(is ...int) []int64 {
	var out []int64
	for _, i := range is {
		out = append(out, int64(100+3*i))
	}
	return out
}

// without is all minus the ids in drop.
func without(all []int64, drop ...int64) []int64 {
	return slices.DeleteFunc(slices.Clone(all), func(id int64) bool { return slices.Contains(drop, id) })
}

// testFilterFunctions: CQL2's Case-insensitive Comparison,
// Accent-insensitive Comparison and Spatial Functions classes (OGC
// 21-065r2, Annex A.5, A.6 and A.9) on the fixture's points and polygons.
func testFilterFunctions(t *testing.T, f *fixture) {
	key := f.reader.Key
	points := "/collections/" + layerID(f.points)
	polygons := "/collections/" + layerID(f.polygons)
	var allPoints []int64 // every point, with or without geometry
	for _, p := range f.pointFeatures {
		allPoints = append(allPoints, p.fid)
	}
	grid := allPoints[:25] // the points with a geometry
	pointOne := pointIDs(1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)

	t.Run("/conf/core/conformance-success", func(t *testing.T) {
		var c struct{ ConformsTo []string }
		f.get(t, key, "/conformance").json(t, http.StatusOK, "application/json", &c)
		for _, class := range []string{"case-insensitive-comparison", "accent-insensitive-comparison"} {
			if !slices.Contains(c.ConformsTo, "http://www.opengis.net/spec/cql2/1.0/conf/"+class) {
				t.Errorf("conformance lacks %s: %v", class, c.ConformsTo)
			}
		}
		// Declared only where it is served: with GEOS.
		if got := slices.Contains(c.ConformsTo, "http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions"); got != relate.Available() {
			t.Errorf("spatial-functions declared %v, GEOS available %v", got, relate.Available())
		}
	})

	t.Run("/conf/case-insensitive-comparison/casei", func(t *testing.T) {
		// "CASEI({queryable}) = casei('foo')", "CASEI({queryable}) <>
		// casei('FOO')": "the two result sets … have no item in common".
		f.expectIDs(t, points, encoded{"CASEI(name) = casei('point 3')",
			`{"op":"=","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["point 3"]}]}`}, pointIDs(3))
		f.expectIDs(t, points, encoded{"CASEI(name) <> casei('POINT 3')",
			`{"op":"<>","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["POINT 3"]}]}`}, without(allPoints, pointIDs(3)...))
		// Without CASEI the comparison keeps its case.
		f.expectIDs(t, points, encoded{"name = 'point 3'", `{"op":"=","args":[{"property":"name"},"point 3"]}`}, nil)
		f.expectIDs(t, points, encoded{"CASEI(name) IN (casei('NOWHERE'), CASEI('point 0'))",
			`{"op":"in","args":[{"op":"casei","args":[{"property":"name"}]},[{"op":"casei","args":["NOWHERE"]},{"op":"casei","args":["point 0"]}]]}`},
			[]int64{100, 500})
		f.expectIDs(t, points, encoded{"CASEI(name) BETWEEN casei('point 20') AND CASEI('POINT 22')",
			`{"op":"between","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["point 20"]},{"op":"casei","args":["POINT 22"]}]}`},
			pointIDs(20, 21, 22))
		f.expectIDs(t, polygons, encoded{"CASEI(\"name\") = CASEI('COVER')",
			`{"op":"=","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["COVER"]}]}`}, []int64{3})
	})
	t.Run("/conf/case-insensitive-comparison/casei-like", func(t *testing.T) {
		// "CASEI({queryable}) LIKE casei('foo%')" and "… casei('FOO%')":
		// "the two result sets … are identical".
		for _, pat := range []string{"point 1%", "POINT 1%"} {
			f.expectIDs(t, points, encoded{"CASEI(name) LIKE casei('" + pat + "')",
				`{"op":"like","args":[{"op":"casei","args":[{"property":"name"}]},{"op":"casei","args":["` + pat + `"]}]}`}, pointOne)
		}
	})

	t.Run("/conf/accent-insensitive-comparison/accenti", func(t *testing.T) {
		// "ACCENTI({queryable}) = accenti('äöüéáí')", "ACCENTI({queryable})
		// <> accenti('aoueai')": no item in common.
		f.expectIDs(t, points, encoded{"ACCENTI(name) = accenti('Pöínt 3')",
			`{"op":"=","args":[{"op":"accenti","args":[{"property":"name"}]},{"op":"accenti","args":["Pöínt 3"]}]}`}, pointIDs(3))
		f.expectIDs(t, points, encoded{"ACCENTI(name) <> accenti('Point 3')",
			`{"op":"<>","args":[{"op":"accenti","args":[{"property":"name"}]},{"op":"accenti","args":["Point 3"]}]}`}, without(allPoints, pointIDs(3)...))
		f.expectIDs(t, points, encoded{"name = 'Pöint 3'", `{"op":"=","args":[{"property":"name"},"Pöint 3"]}`}, nil)
		// A decomposed accent (i + U+0301) is stripped alike.
		f.expectIDs(t, polygons, encoded{"ACCENTI(name) = ACCENTI('tri\u0301angle miss')",
			`{"op":"=","args":[{"op":"accenti","args":[{"property":"name"}]},{"op":"accenti","args":["tri\u0301angle miss"]}]}`}, []int64{2})
	})
	t.Run("/conf/accent-insensitive-comparison/accenti-like", func(t *testing.T) {
		for _, pat := range []string{"Pöint 1%", "Point 1%"} {
			f.expectIDs(t, points, encoded{"ACCENTI(name) LIKE accenti('" + pat + "')",
				`{"op":"like","args":[{"op":"accenti","args":[{"property":"name"}]},{"op":"accenti","args":["` + pat + `"]}]}`}, pointOne)
		}
	})
	t.Run("/conf/accent-insensitive-comparison/accenti-casei", func(t *testing.T) {
		// "ACCENTI(CASEI({queryable})) = accenti(casei('ÄÉ'))" and "…
		// accenti(casei('ae'))": identical.
		for _, s := range []string{"PÖÏNT 3", "point 3"} {
			f.expectIDs(t, points, encoded{"ACCENTI(CASEI(name)) = accenti(casei('" + s + "'))",
				`{"op":"=","args":[{"op":"accenti","args":[{"op":"casei","args":[{"property":"name"}]}]},{"op":"accenti","args":[{"op":"casei","args":["` + s + `"]}]}]}`},
				pointIDs(3))
		}
	})
	t.Run("/conf/accent-insensitive-comparison/accenti-casei-like", func(t *testing.T) {
		for _, pat := range []string{"PÓÏNT 1%", "point 1%"} {
			f.expectIDs(t, points, encoded{"ACCENTI(CASEI(name)) LIKE accenti(casei('" + pat + "'))",
				`{"op":"like","args":[{"op":"accenti","args":[{"op":"casei","args":[{"property":"name"}]}]},{"op":"accenti","args":[{"op":"casei","args":["` + pat + `"]}]}]}`},
				pointOne)
		}
	})

	t.Run("/conf/spatial-functions", func(t *testing.T) {
		if !relate.Available() {
			t.Fatal("GDAL was built without GEOS")
		}
		// The box 174.80..174.90, -41.30..-41.20 of the S_INTERSECTS tests.
		const q = "POLYGON((174.80 -41.30, 174.90 -41.30, 174.90 -41.20, 174.80 -41.20, 174.80 -41.30))"
		const qj = `{"type":"Polygon","coordinates":[[[174.80,-41.30],[174.90,-41.30],[174.90,-41.20],[174.80,-41.20],[174.80,-41.30]]]}`
		fn := func(op, a, b, aj, bj string) encoded {
			return encoded{op + "(" + a + ", " + b + ")", `{"op":"` + strings.ToLower(op) + `","args":[` + aj + `,` + bj + `]}`}
		}
		const g, gj = "geometry", `{"property":"geometry"}`
		all := []int64{1, 2, 3, 4, 5, 6}
		for _, tc := range []struct {
			q    encoded
			want []int64
		}{
			{fn("S_INTERSECTS", g, q, gj, qj), []int64{1, 3, 6}},
			// A.9.2: no item in common with S_INTERSECTS; the holed polygon
			// (its hole holds the box) and the triangle whose box alone
			// meets it are disjoint.
			{fn("S_DISJOINT", g, q, gj, qj), []int64{2, 4, 5}},
			{fn("S_WITHIN", g, q, gj, qj), []int64{1}},
			{fn("S_CONTAINS", g, q, gj, qj), []int64{3}},
			{fn("S_OVERLAPS", g, q, gj, qj), []int64{6}},
			// The first polygon, its ring from another corner and the other
			// way round.
			{fn("S_EQUALS", g, "POLYGON((174.84 -41.26, 174.82 -41.26, 174.82 -41.28, 174.84 -41.28, 174.84 -41.26))", gj,
				`{"type":"Polygon","coordinates":[[[174.84,-41.26],[174.82,-41.26],[174.82,-41.28],[174.84,-41.28],[174.84,-41.26]]]}`), []int64{1}},
			// A box sharing the first polygon's east edge.
			{fn("S_TOUCHES", g, "BBOX(174.84, -41.28, 174.86, -41.26)", gj, `{"bbox":[174.84,-41.28,174.86,-41.26]}`), []int64{1}},
			// A line from outside into the first polygon: it crosses the
			// polygons it leaves, not the one it stays inside.
			{fn("S_CROSSES", g, "LINESTRING(174.83 -41.5, 174.83 -41.27)", gj, `{"type":"LineString","coordinates":[[174.83,-41.5],[174.83,-41.27]]}`), []int64{1, 2, 4}},
			// The literal first: a point within the polygons around it (in
			// the holed one's hole: not within it).
			{fn("S_WITHIN", "POINT(174.83 -41.27)", g, `{"type":"Point","coordinates":[174.83,-41.27]}`, gj), []int64{1, 3}},
			{fn("S_CONTAINS", g, "POINT(174.83 -41.27)", gj, `{"type":"Point","coordinates":[174.83,-41.27]}`), []int64{1, 3}},
			// A.9.6, A.9.2: the world as a BBOX and as a POLYGON.
			{fn("S_WITHIN", g, "BBOX(-180,-90,180,90)", gj, `{"bbox":[-180,-90,180,90]}`), all},
			{fn("S_WITHIN", g, "POLYGON((-180 -90,180 -90,180 90,-180 90,-180 -90))", gj,
				`{"type":"Polygon","coordinates":[[[-180,-90],[180,-90],[180,90],[-180,90],[-180,-90]]]}`), all},
			{fn("S_DISJOINT", g, "BBOX(-180,-90,180,90)", gj, `{"bbox":[-180,-90,180,90]}`), nil},
			{encoded{"S_DISJOINT(geometry, " + q + ") AND NOT S_TOUCHES(geometry, " + q + ") OR S_EQUALS(geometry, " + q + ")", ""}, []int64{2, 4, 5}},
		} {
			f.expectIDs(t, polygons, tc.q, tc.want)
		}
		// S_DISJOINT has no box to narrow the query by: every grid point
		// outside the box, the point without a geometry not at all.
		inBox := pointIDs(0, 1, 5, 6)
		f.expectIDs(t, points, fn("S_DISJOINT", g, "BBOX(174.69, -41.31, 174.725, -41.275)", gj, `{"bbox":[174.69,-41.31,174.725,-41.275]}`),
			without(grid, inBox...))
		f.expectIDs(t, points, fn("S_WITHIN", g, "BBOX(174.69, -41.31, 174.725, -41.275)", gj, `{"bbox":[174.69,-41.31,174.725,-41.275]}`), inBox)
	})

	t.Run("invalid uses", func(t *testing.T) {
		for _, tc := range []struct{ lang, filter, want string }{
			// A.9.1: "unsuccessful execution … (invalid coordinate)".
			{"cql2-text", "S_INTERSECTS(geometry, POINT(90 180))", "outside CRS84"},
			{"cql2-json", `{"op":"s_within","args":[{"property":"geometry"},{"type":"Point","coordinates":[90,180]}]}`, "outside CRS84"},
			{"cql2-text", "CASEI(rank) = '1'", `CASEI takes a string, and "rank" is an integer queryable`},
			{"cql2-json", `{"op":"=","args":[{"op":"accenti","args":[{"property":"rank"}]},"1"]}`, `ACCENTI takes a string, and "rank" is an integer queryable`},
			{"cql2-text", "ACCENTI(geometry) = 'x'", "ACCENTI takes a string"},
			{"cql2-text", "CASEI(3) = '3'", "CASEI at 1 takes a string or a property"},
			{"cql2-json", `{"op":"=","args":[{"op":"casei","args":[3]},"3"]}`, "casei takes a string or a property"},
			{"cql2-text", "CASEI(name, 'x') = 'x'", "CASEI at 1 takes one argument"},
			{"cql2-json", `{"op":"=","args":[{"op":"casei","args":[{"property":"name"},"x"]},"x"]}`, "casei takes one argument"},
			{"cql2-text", "CASEI(nosuch) = 'x'", `"nosuch" is not a queryable`},
			{"cql2-text", "UPPER(name) = 'X'", "function UPPER at 1 is not supported"},
			{"cql2-json", `{"op":"upper","args":[{"property":"name"}]}`, `operator "upper" is not supported`},
			{"cql2-text", "S_WITHIN(geometry)", "S_WITHIN takes two geometries"},
			{"cql2-json", `{"op":"s_crosses","args":[{"property":"geometry"}]}`, "s_crosses takes 2 geometries"},
			{"cql2-text", "S_NEAR(geometry, POINT(174 -41))", "S_NEAR is not a spatial function"},
			{"cql2-json", `{"op":"s_touches","args":[{"property":"geometry"},"POINT(174 -41)"]}`, "s_touches takes two geometries"},
		} {
			var ex exception
			f.get(t, key, points+"/items?filter-lang="+tc.lang+"&filter="+url.QueryEscape(tc.filter)).json(t, http.StatusBadRequest, "application/json", &ex)
			if ex.Code != "InvalidParameterValue" || !strings.Contains(ex.Description, tc.want) {
				t.Errorf("%s: %+v, want %q", tc.filter, ex, tc.want)
			}
		}
	})
}
