package ogc_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestParsersRefuse covers the defects of issue 24 on one fixture per
// backend: what the parsers refused with a 500 (or a 200 and nothing).
func TestParsersRefuse(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		t.Run("geometry collection literal", func(t *testing.T) { testGeometryCollectionLiteral(t, f) })
		t.Run("vertical crs", func(t *testing.T) { testVerticalCRS(t, f) })
	})
}

// A GeometryCollection literal in a CQL2 spatial predicate (text and
// JSON) is a geometry like any other: the features meeting one of its
// members.
func testGeometryCollectionLiteral(t *testing.T, f *fixture) {
	polygons := "/collections/" + layerID(f.polygons) + "/items?limit=100&"
	for _, tc := range []struct {
		q    string
		want []int64
	}{
		// The first polygon's inside and the far polygon's.
		{"filter=" + url.QueryEscape("S_INTERSECTS(geometry, GEOMETRYCOLLECTION(POINT(174.83 -41.27), POINT(170.05 -44.97)))"), []int64{1, 3, 5}},
		{"filter-lang=cql2-json&filter=" + url.QueryEscape(`{"op":"s_intersects","args":[{"property":"geometry"},{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[174.83,-41.27]},{"type":"Point","coordinates":[170.05,-44.97]}]}]}`), []int64{1, 3, 5}},
		{"filter=" + url.QueryEscape("S_INTERSECTS(geometry, GEOMETRYCOLLECTION(POINT(174.83 -41.27), LINESTRING(170.05 -44.97, 170.06 -44.96)))"), []int64{1, 3, 5}},
		{"filter=" + url.QueryEscape("S_DISJOINT(geometry, GEOMETRYCOLLECTION(POINT(174.83 -41.27)))"), []int64{2, 4, 5, 6}},
		{"filter=" + url.QueryEscape("S_WITHIN(geometry, GEOMETRYCOLLECTION(POLYGON((174.81 -41.29, 174.85 -41.29, 174.85 -41.25, 174.81 -41.25, 174.81 -41.29))))"), []int64{1}},
		{"filter-crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/4326") + "&filter=" + url.QueryEscape("S_INTERSECTS(geometry, GEOMETRYCOLLECTION(POINT(-41.27 174.83)))"), []int64{1, 3}},
	} {
		var fc collectionJSON
		f.get(t, f.reader.Key, polygons+tc.q).json(t, http.StatusOK, "application/geo+json", &fc)
		var got []int64
		for _, ft := range fc.Features {
			got = append(got, ft.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.q, got, tc.want)
		}
	}
	// An empty collection meets nothing.
	var fc collectionJSON
	f.get(t, f.reader.Key, polygons+"filter-lang=cql2-json&filter="+url.QueryEscape(`{"op":"s_intersects","args":[{"property":"geometry"},{"type":"GeometryCollection","geometries":[]}]}`)).json(t, http.StatusOK, "application/geo+json", &fc)
	if len(fc.Features) != 0 {
		t.Errorf("empty collection: %d features", len(fc.Features))
	}
}

// A vertical CRS (EPSG:5773, EGM96 height) has no horizontal axes: every
// door refuses it with a 400 that says so.
func testVerticalCRS(t *testing.T, f *fixture) {
	items := "/collections/" + layerID(f.points) + "/items?"
	for _, q := range []string{
		"crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/5773"),
		"bbox=0,0,1,1&bbox-crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/5773"),
		"filter-crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/5773") + "&filter=" + url.QueryEscape("S_INTERSECTS(geometry, POINT(1 1))"),
		"filter-crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/4978") + "&filter=" + url.QueryEscape("S_INTERSECTS(geometry, POINT(1 1))"),
	} {
		var ex exception
		f.get(t, f.reader.Key, items+q).json(t, http.StatusBadRequest, "application/json", &ex)
		if ex.Code != "InvalidParameterValue" || !strings.Contains(ex.Description, "horizontal") {
			t.Errorf("%s: %+v", q, ex)
		}
	}
	var ex exception
	f.get(t, f.reader.Key, "/collections/"+layerID(f.points)+"/items/100?crs=EPSG:5773").json(t, http.StatusBadRequest, "application/json", &ex)
	if !strings.Contains(ex.Description, "horizontal") {
		t.Errorf("single feature: %+v", ex)
	}
	pts := wfsName("layer", f.points)
	for _, p := range [][]string{
		{"VERSION", "2.0.0", "TYPENAMES", pts, "SRSNAME", "urn:ogc:def:crs:EPSG::5773"},
		{"VERSION", "2.0.0", "TYPENAMES", pts, "SRSNAME", "EPSG:5773"},
		{"VERSION", "1.1.0", "TYPENAME", pts, "SRSNAME", "EPSG:5773"},
		{"VERSION", "2.0.0", "TYPENAMES", pts, "BBOX", "0,0,1,1,urn:ogc:def:crs:EPSG::5773"},
		{"VERSION", "2.0.0", "TYPENAMES", pts, "FILTER", fesFilter(`<fes:BBOX><fes:ValueReference>GEOMETRY</fes:ValueReference><gml:Envelope srsName="urn:ogc:def:crs:EPSG::5773"><gml:lowerCorner>0 0</gml:lowerCorner><gml:upperCorner>1 1</gml:upperCorner></gml:Envelope></fes:BBOX>`)},
	} {
		r := f.wfs(t, f.reader.Key, append([]string{"REQUEST", "GetFeature"}, p...)...)
		ex := r.exception(t, http.StatusBadRequest, "InvalidParameterValue")
		if !strings.Contains(ex.Exception.Text, "horizontal") {
			t.Errorf("%v: %s", p, r.body)
		}
	}
}
