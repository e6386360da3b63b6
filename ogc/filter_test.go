package ogc_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// ids reads every page of a query and returns the feature ids.
func (f *fixture) ids(t *testing.T, path string) []int64 {
	t.Helper()
	got, _ := f.allPages(t, f.reader.Key, path)
	var out []int64
	for _, g := range got {
		out = append(out, g.ID)
	}
	return out
}

// testFilter: Part 3, CQL2 text and JSON, from the abstract test suites.
func testFilter(t *testing.T, f *fixture) {
	key := f.reader.Key
	points := "/collections/" + layerID(f.points)
	polygons := "/collections/" + layerID(f.polygons)
	t.Run("/conf/queryables/get-queryables-response", func(t *testing.T) {
		var q struct {
			Schema     string                    `json:"$schema"`
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
		}
		f.get(t, key, points+"/queryables").json(t, http.StatusOK, "application/schema+json", &q)
		if q.Type != "object" || q.Properties["name"]["type"] != "string" || q.Properties["rank"]["type"] != "integer" ||
			q.Properties["geometry"]["format"] != "geometry-any" {
			t.Errorf("queryables %+v", q)
		}
		var c struct{ Links []link }
		f.get(t, key, points).json(t, http.StatusOK, "application/json", &c)
		if _, ok := findLink(c.Links, "http://www.opengis.net/def/rel/ogc/1.0/queryables", ""); !ok {
			t.Errorf("no queryables link: %+v", c.Links)
		}
	})
	t.Run("/conf/basic-cql2/test-data", func(t *testing.T) {
		for filter, want := range map[string]int{
			"rank = 2":                             8,
			"rank <> 2 AND rank IS NOT NULL":       17,
			"rank IS NULL":                         1,
			"name LIKE 'Point 1%'":                 11,
			"rank BETWEEN 1 AND 2 AND name <> 'x'": 15,
			"name IN ('Point 3', 'Nowhere')":       2,
			"NOT (rank < 2) OR name = 'Point 0'":   10,
			"S_INTERSECTS(geometry, BBOX(174.69, -41.31, 174.725, -41.275))": 4,
			"S_INTERSECTS(\"GEOMETRY\", POINT(174.7 -41.3))":                 1,
		} {
			// Paged by 3: every match once, across pages.
			got := f.ids(t, points+"/items?limit=3&filter="+url.QueryEscape(filter))
			if len(got) != want || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Errorf("%s: %d features %v, want %d", filter, len(got), got, want)
			}
		}
	})
	t.Run("/conf/cql2-json", func(t *testing.T) {
		got := f.ids(t, points+"/items?filter-lang=cql2-json&filter="+url.QueryEscape(`{"op":"and","args":[{"op":"=","args":[{"property":"rank"},2]},{"op":"like","args":[{"property":"name"},"Point 1%"]}]}`))
		if !slices.Equal(got, []int64{133, 142, 151}) {
			t.Errorf("json filter: %v", got)
		}
	})
	t.Run("/conf/basic-spatial-functions", func(t *testing.T) {
		// Exact intersection, as the bbox parameter.
		got := f.ids(t, polygons+"/items?filter="+url.QueryEscape("S_INTERSECTS(geometry, POLYGON((174.80 -41.30, 174.90 -41.30, 174.90 -41.20, 174.80 -41.20, 174.80 -41.30)))"))
		if !slices.Equal(got, []int64{1, 3, 6}) {
			t.Errorf("polygon literal: %v", got)
		}
		got = f.ids(t, polygons+"/items?filter="+url.QueryEscape("S_INTERSECTS(geometry, LINESTRING(174.83 -41.5, 174.83 -41.27))"))
		if !slices.Equal(got, []int64{1, 2, 3, 4}) {
			t.Errorf("line literal: %v", got)
		}
		// Two spatial conditions far apart: a feature must meet both.
		got = f.ids(t, polygons+"/items?filter="+url.QueryEscape("S_INTERSECTS(geometry, POINT(174.1 -41.9)) AND S_INTERSECTS(geometry, POINT(175.4 -40.6)) AND name <> 'x'"))
		if !slices.Equal(got, []int64{3, 4}) {
			t.Errorf("two points: %v", got)
		}
		// filter-crs: the first polygon's box in Web Mercator.
		c := gdalReproject(t, 3857, []float64{174.825, -41.275, 174.835, -41.265})
		bbox := "BBOX(" + ftoa(c[0]) + "," + ftoa(c[1]) + "," + ftoa(c[2]) + "," + ftoa(c[3]) + ")"
		got = f.ids(t, polygons+"/items?filter-crs="+url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/3857")+"&filter="+url.QueryEscape("S_INTERSECTS(geometry, "+bbox+")"))
		if !slices.Equal(got, []int64{1, 3}) {
			t.Errorf("filter-crs: %v", got)
		}
	})
	t.Run("filter with bbox and datetime", func(t *testing.T) {
		got := f.ids(t, "/collections/"+layerID(f.events)+"/items?datetime=2021-01-01/..&filter="+url.QueryEscape("when < TIMESTAMP('2023-01-01T00:00:00Z')"))
		if !slices.Equal(got, []int64{2, 3}) {
			t.Errorf("datetime and filter: %v", got)
		}
	})
	t.Run("invalid filters", func(t *testing.T) {
		for _, q := range []string{
			"filter=" + url.QueryEscape("nosuch = 1"),
			"filter=" + url.QueryEscape("rank = "),
			"filter=" + url.QueryEscape("S_NEAR(geometry, POINT(1 1))"),
			"filter-lang=cql2-json&filter=" + url.QueryEscape("rank = 1"),
			"filter-lang=sql&filter=" + url.QueryEscape("rank = 1"),
			"filter-lang=cql2-text",
			"filter-crs=foo&filter=" + url.QueryEscape("rank = 1"),
		} {
			var ex exception
			f.get(t, key, points+"/items?"+q).json(t, http.StatusBadRequest, "application/json", &ex)
			if ex.Code != "InvalidParameterValue" || !strings.Contains(ex.Description, "filter") {
				t.Errorf("%s: %+v", q, ex)
			}
		}
	})
}
