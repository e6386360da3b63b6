package ogc_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
)

// TestWFSCountsAndSchemas covers what clients read of a type before its
// features: the count of hits and the geometry type of its schema.
func TestWFSCountsAndSchemas(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		g := newGeometryLayers(t, f)
		t.Run("hits 1.1", func(t *testing.T) { testWFSHits11(t, f) })
		t.Run("describe geometry types", func(t *testing.T) { testWFSGeometryTypes(t, f, g) })
	})
}

// geometryLayers are one layer of each line and polygon type.
type geometryLayers struct {
	lines, multiLines, multiPolygons int
}

func newGeometryLayers(t *testing.T, f *fixture) geometryLayers {
	name := []schematype.Field{{Name: "name", Type: "string"}}
	attrs := map[string]any{"name": "one"}
	line := geom.NewLineStringFlat(geom.XY, []float64{174.7, -41.3, 174.8, -41.2})
	mline := geom.NewMultiLineStringFlat(geom.XY, []float64{174.7, -41.3, 174.8, -41.2, 174.9, -41.3, 175, -41.2}, []int{4, 8})
	mpoly := geom.NewMultiPolygon(geom.XY)
	if err := mpoly.Push(poly([]float64{174.7, -41.3, 174.8, -41.3, 174.8, -41.2, 174.7, -41.3})); err != nil {
		t.Fatal(err)
	}
	return geometryLayers{
		lines:         publish(t, f.e, f.owner.User, layer.TypeLayer, "Lines", "linestring", name, []feature{{1, line, attrs}}),
		multiLines:    publish(t, f.e, f.owner.User, layer.TypeLayer, "Multilines", "multilinestring", name, []feature{{1, mline, attrs}}),
		multiPolygons: publish(t, f.e, f.owner.User, layer.TypeLayer, "Multipolygons", "multipolygon", name, []feature{{1, mpoly, attrs}}),
	}
}

// WFS 1.1 has no numberMatched: numberOfFeatures of a hits answer is
// the number of features the query matches (WFS 1.1.0, 9.2: "the
// numberOfFeatures attribute ... indicate the number of feature
// instances that satisfy the query"), which GDAL reports as the layer's
// feature count.
func testWFSHits11(t *testing.T, f *fixture) {
	pts := wfsName("layer", f.points)
	numberOf := regexp.MustCompile(`numberOfFeatures="(\d+)"`)
	for _, tc := range []struct {
		params []string
		want   string
	}{
		{nil, "26"},
		{[]string{"BBOX", "-41.31,174.69,-41.275,174.725,urn:ogc:def:crs:EPSG::4326"}, "4"},
		{[]string{"FILTER", `<Filter xmlns="http://www.opengis.net/ogc"><PropertyIsEqualTo><PropertyName>rank</PropertyName><Literal>2</Literal></PropertyIsEqualTo></Filter>`}, "8"},
	} {
		r := f.wfs(t, f.reader.Key, append([]string{"REQUEST", "GetFeature", "VERSION", "1.1.0", "TYPENAME", pts, "RESULTTYPE", "hits"}, tc.params...)...)
		m := numberOf.FindSubmatch(r.body)
		if r.status != http.StatusOK || m == nil || string(m[1]) != tc.want {
			t.Errorf("hits %v: %d %s, want numberOfFeatures=%s", tc.params, r.status, r.body, tc.want)
		}
	}
	// A page of results counts what it returns.
	r := f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "1.1.0", "TYPENAME", pts, "MAXFEATURES", "3")
	if m := numberOf.FindSubmatch(r.body); m == nil || string(m[1]) != "3" {
		t.Errorf("results: %s", r.body)
	}

	ogrinfo := requireTool(t, "ogrinfo", "gdal-bin")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Feature Count: 26"},
		{[]string{"-where", "rank = 2"}, "Feature Count: 8"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		args := append([]string{"-so"}, tc.args...)
		args = append(args, "WFS:"+f.e.HTTP.URL+"/services/wfs/?VERSION=1.1.0&key="+f.reader.Key, pts)
		cmd := exec.CommandContext(ctx, ogrinfo, args...)
		cmd.Env = append(os.Environ(), "CPL_DEBUG=ON", "GDAL_HTTP_TIMEOUT=30")
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("ogrinfo %v: %v\n%s", tc.args, err, b)
		}
		if !strings.Contains(string(b), tc.want) || !strings.Contains(string(b), "RESULTTYPE=hits") {
			t.Errorf("ogrinfo %v: want %s from a hits request:\n%s", tc.args, tc.want, b)
		}
	}
}

// DescribeFeatureType declares each layer's own geometry type, as GDAL's
// GML writer does: Surface and Curve property types (GML 3.2; the
// Polygon and LineString ones in GML 3.1.1), MultiSurface and MultiCurve
// for the multi types (what the features' GML is). GDAL and OWSLib read
// it back.
func testWFSGeometryTypes(t *testing.T, f *fixture, g geometryLayers) {
	for _, tc := range []struct {
		name        string
		gml32, gml3 string
		gdal        string
		owslib      string // OWSLib's name, WFS 1.1 (GML 3.1.1)
	}{
		{wfsName("layer", f.points), "gml:PointPropertyType", "gml:PointPropertyType", "Point", "Point"},
		{wfsName("layer", f.polygons), "gml:SurfacePropertyType", "gml:PolygonPropertyType", "Polygon", "Polygon"},
		{wfsName("layer", g.lines), "gml:CurvePropertyType", "gml:LineStringPropertyType", "Line String", "LineString"},
		{wfsName("layer", g.multiPolygons), "gml:MultiSurfacePropertyType", "gml:MultiSurfacePropertyType", "Multi Polygon", "3D MultiPolygon"},
		{wfsName("layer", g.multiLines), "gml:MultiCurvePropertyType", "gml:MultiCurvePropertyType", "Multi Line String", ""},
	} {
		for _, v := range []struct{ version, param, want string }{{"2.0.0", "TYPENAMES", tc.gml32}, {"1.1.0", "TYPENAME", tc.gml3}} {
			r := f.wfs(t, f.reader.Key, "REQUEST", "DescribeFeatureType", "VERSION", v.version, v.param, tc.name)
			if r.status != http.StatusOK || !strings.Contains(string(r.body), `name="GEOMETRY" type="`+v.want+`"`) {
				t.Errorf("%s %s: want %s: %s", v.version, tc.name, v.want, r.body)
			}
		}
		ogrinfo := requireTool(t, "ogrinfo", "gdal-bin")
		for _, version := range []string{"2.0.0", "1.1.0"} {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			b, err := exec.CommandContext(ctx, ogrinfo, "-so", "WFS:"+f.e.HTTP.URL+"/services/wfs/?VERSION="+version+"&key="+f.reader.Key, tc.name).CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("ogrinfo %s: %v\n%s", tc.name, err, b)
			}
			if !strings.Contains(string(b), "Geometry: "+tc.gdal+"\n") {
				t.Errorf("GDAL %s %s: want Geometry: %s:\n%s", version, tc.name, tc.gdal, b)
			}
		}
	}
	testOWSLibSchemas(t, f, g)
}

// owslibSchemaScript prints the geometry of the schemas OWSLib reads.
const owslibSchemaScript = `
import json, sys
from owslib.feature.schema import get_schema
h = {"Authorization": "key " + sys.argv[2]}
print(json.dumps({v + " " + n: get_schema(sys.argv[1], n, v, headers=h)["geometry"] for n in sys.argv[3:] for v in ("1.1.0", "2.0.0")}))
`

func testOWSLibSchemas(t *testing.T, f *fixture, g geometryLayers) {
	python := requireTool(t, "/usr/bin/python3", "python3-owslib")
	if err := exec.Command(python, "-c", "import owslib.feature.schema").Run(); err != nil {
		requireTool(t, "/usr/lib/python3/dist-packages/owslib/missing", "python3-owslib")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	polys, lines, mpolys := wfsName("layer", f.polygons), wfsName("layer", g.lines), wfsName("layer", g.multiPolygons)
	b, err := exec.CommandContext(ctx, python, "-c", owslibSchemaScript, f.e.HTTP.URL+"/services/wfs/", f.reader.Key, polys, lines, mpolys).CombinedOutput()
	if err != nil {
		t.Fatalf("owslib: %v\n%s", err, b)
	}
	var got map[string]string
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	// OWSLib names GML 3.2's SurfacePropertyType "3D Polygon" and has no
	// name for CurvePropertyType.
	for k, want := range map[string]string{"1.1.0 " + polys: "Polygon", "2.0.0 " + polys: "3D Polygon",
		"1.1.0 " + lines: "LineString", "1.1.0 " + mpolys: "3D MultiPolygon", "2.0.0 " + mpolys: "3D MultiPolygon"} {
		if got[k] != want {
			t.Errorf("OWSLib %s geometry %q, want %s (all: %s)", k, got[k], want, b)
		}
	}
}
