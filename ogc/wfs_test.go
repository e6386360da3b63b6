package ogc_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWFS runs the WFS tests on one fixture per backend (the access
// tests, which change permissions, last).
func TestWFS(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		t.Run("capabilities", func(t *testing.T) { testWFSCapabilities(t, f) })
		t.Run("gdal", func(t *testing.T) { testWFSGDAL(t, f) })
		t.Run("gdal filters", func(t *testing.T) { testWFSGDALFilters(t, f) })
		t.Run("filters", func(t *testing.T) { testWFSFilters(t, f) })
		t.Run("paging", func(t *testing.T) { testWFSPaging(t, f) })
		t.Run("srsname", func(t *testing.T) { testWFSSRSName(t, f) })
		t.Run("errors", func(t *testing.T) { testWFSErrors(t, f) })
		t.Run("stored queries", func(t *testing.T) { testWFSStoredQueries(t, f) })
		t.Run("GetPropertyValue", func(t *testing.T) { testWFSGetPropertyValue(t, f) })
		t.Run("owslib", func(t *testing.T) { testWFSOWSLib(t, f) })
		t.Run("access", func(t *testing.T) { testWFSAccess(t, f) })
	})
}

// wfs sends a WFS GET with params and an optional key header.
func (f *fixture) wfs(t *testing.T, key string, params ...string) response {
	t.Helper()
	q := url.Values{"SERVICE": {"WFS"}}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	return f.get(t, key, f.e.HTTP.URL+"/services/wfs/?"+q.Encode())
}

// owsException is an ExceptionReport's first exception.
type owsException struct {
	Exception struct {
		Code    string `xml:"exceptionCode,attr"`
		Locator string `xml:"locator,attr"`
		Text    string `xml:"ExceptionText"`
	}
}

func (r response) exception(t *testing.T, status int, code string) owsException {
	t.Helper()
	var ex owsException
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if err := xml.Unmarshal(r.body, &ex); err != nil || ex.Exception.Code != code {
		t.Fatalf("want an exception %s: %v %s", code, err, r.body)
	}
	return ex
}

// typeNames lists the feature types of a capabilities document.
func typeNames(t *testing.T, body []byte) []string {
	t.Helper()
	var caps struct {
		Types []struct {
			Name       string
			DefaultCRS string
			DefaultSRS string
		} `xml:"FeatureTypeList>FeatureType"`
	}
	if err := xml.Unmarshal(body, &caps); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	for _, ty := range caps.Types {
		out = append(out, ty.Name)
	}
	return out
}

func wfsName(prefix string, id int) string { return fmt.Sprintf("geopub:%s-%d", prefix, id) }

func testWFSCapabilities(t *testing.T, f *fixture) {
	for _, v := range []string{"2.0.0", "1.1.0"} {
		r := f.wfs(t, f.reader.Key, "REQUEST", "GetCapabilities", "ACCEPTVERSIONS", v)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `version="`+v+`"`) {
			t.Fatalf("%s: %d %s", v, r.status, r.body)
		}
		names := typeNames(t, r.body)
		want := []string{wfsName("layer", f.points), wfsName("layer", f.polygons), wfsName("table", f.table), wfsName("layer", f.events)}
		if !slices.Equal(names, want) {
			t.Errorf("%s: types %v, want %v", v, names, want)
		}
		for _, s := range []string{"ImplementsResultPaging", "urn:ogc:def:crs:EPSG::4326", "WGS84BoundingBox", "Filter_Capabilities", "/services/wfs/"} {
			if !strings.Contains(string(r.body), s) && (v == "2.0.0" || s != "ImplementsResultPaging") {
				t.Errorf("%s: capabilities lack %s", v, s)
			}
		}
	}
	r := f.wfs(t, f.reader.Key, "REQUEST", "DescribeFeatureType", "VERSION", "2.0.0", "TYPENAMES", wfsName("layer", f.points))
	for _, s := range []string{`name="rank" type="xsd:long"`, `name="name" type="xsd:string"`, `type="gml:PointPropertyType"`, "http://www.opengis.net/gml/3.2"} {
		if r.status != http.StatusOK || !strings.Contains(string(r.body), s) {
			t.Errorf("DescribeFeatureType lacks %s: %s", s, r.body)
		}
	}
	r = f.wfs(t, f.reader.Key, "REQUEST", "DescribeFeatureType", "VERSION", "1.1.0", "TYPENAME", wfsName("layer", f.polygons))
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"http://www.opengis.net/gml"`) || !strings.Contains(string(r.body), "gml:_Feature") {
		t.Errorf("DescribeFeatureType 1.1.0: %s", r.body)
	}
}

// GDAL's WFS driver reads every layer in full, in WFS 2.0 (paging by
// STARTINDEX, pages of 7) and in WFS 1.1.0.
func testWFSGDAL(t *testing.T, f *fixture) {
	ogr2ogr := requireTool(t, "ogr2ogr", "gdal-bin")
	for _, version := range []string{"2.0.0", "1.1.0"} {
		for _, tc := range []struct {
			name string
			want []feature
		}{{wfsName("layer", f.points), f.pointFeatures}, {wfsName("layer", f.polygons), f.polygonFeatures}, {wfsName("table", f.table), f.tableFeatures}} {
			out := filepath.Join(t.TempDir(), "out.geojson")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			src := "WFS:" + f.e.HTTP.URL + "/services/wfs/?key=" + f.owner.Key
			if version != "2.0.0" {
				src += "&VERSION=" + version
			}
			cmd := exec.CommandContext(ctx, ogr2ogr, "-f", "GeoJSON", out, src, tc.name)
			cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=30", "CPL_DEBUG=ON", "OGR_WFS_PAGING_ALLOWED=ON", "OGR_WFS_PAGE_SIZE=7")
			b, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s ogr2ogr %s: %v\n%s", version, tc.name, err, b)
			}
			if version == "2.0.0" && len(tc.want) > 7 && !strings.Contains(string(b), "STARTINDEX=7") {
				t.Errorf("%s: GDAL did not page:\n%s", tc.name, b)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			checkGeoJSON(t, version+" "+tc.name, raw, tc.want)
		}
	}
}

// GDAL turns its attribute and spatial filters into FES 2.0 filters
// (-where, -spat): the features they keep.
func testWFSGDALFilters(t *testing.T, f *fixture) {
	ogr2ogr := requireTool(t, "ogr2ogr", "gdal-bin")
	for _, tc := range []struct {
		args []string
		want []int64
	}{
		{[]string{"-where", "rank = 2 AND name LIKE 'Point 1%'"}, []int64{133, 142, 151}},
		{[]string{"-spat", "174.69", "-41.31", "174.725", "-41.275"}, []int64{100, 103, 115, 118}},
		{[]string{"-where", "(rank BETWEEN 2 AND 9 AND name <> 'Point 2') OR rank IS NULL"}, []int64{112, 115, 124, 133, 142, 151, 160, 169, 500}},
	} {
		out := filepath.Join(t.TempDir(), "out.geojson")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		args := append([]string{"-f", "GeoJSON", out}, tc.args...)
		args = append(args, "WFS:"+f.e.HTTP.URL+"/services/wfs/?key="+f.reader.Key, wfsName("layer", f.points))
		cmd := exec.CommandContext(ctx, ogr2ogr, args...)
		cmd.Env = append(os.Environ(), "CPL_DEBUG=ON")
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("ogr2ogr %v: %v\n%s", tc.args, err, b)
		}
		if !strings.Contains(string(b), "FILTER=") {
			t.Errorf("%v: GDAL filtered in the client:\n%s", tc.args, b)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var fc struct {
			Features []struct {
				Properties struct {
					GMLID string `json:"gml_id"`
				}
			}
		}
		if err := json.Unmarshal(raw, &fc); err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, ft := range fc.Features {
			var n int64
			fmt.Sscanf(ft.Properties.GMLID[strings.LastIndexByte(ft.Properties.GMLID, '.')+1:], "%d", &n)
			got = append(got, n)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v, want %v", tc.args, got, tc.want)
		}
	}
}

// wfsJSON is a GetFeature answer in GeoJSON.
type wfsJSON struct {
	NumberMatched  *int64 `json:"numberMatched"`
	NumberReturned int    `json:"numberReturned"`
	Features       []struct {
		ID       string          `json:"id"`
		Geometry json.RawMessage `json:"geometry"`
	} `json:"features"`
}

// fids fetches a GetFeature of typ in GeoJSON and returns its feature
// ids (the numbers after the type name).
func (f *fixture) fids(t *testing.T, typ string, params ...string) []int64 {
	t.Helper()
	var fc wfsJSON
	p := append([]string{"REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", typ, "OUTPUTFORMAT", "application/json"}, params...)
	f.wfs(t, f.reader.Key, p...).json(t, http.StatusOK, "application/json", &fc)
	out := []int64{}
	for _, ft := range fc.Features {
		var n int64
		if _, err := fmt.Sscanf(ft.ID[strings.LastIndexByte(ft.ID, '.')+1:], "%d", &n); err != nil {
			t.Fatalf("feature id %q", ft.ID)
		}
		out = append(out, n)
	}
	return out
}

const fes = `xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"`

func testWFSFilters(t *testing.T, f *fixture) {
	pts, polys := wfsName("layer", f.points), wfsName("layer", f.polygons)
	for _, tc := range []struct {
		name   string
		typ    string
		params []string
		want   []int64
	}{
		// BBOX in the default CRS (urn EPSG:4326: latitude first) and
		// with a short-form CRS (longitude first).
		{"bbox urn", pts, []string{"BBOX", "-41.31,174.69,-41.275,174.725"}, []int64{100, 103, 115, 118}},
		{"bbox short", pts, []string{"BBOX", "174.69,-41.31,174.725,-41.275,EPSG:4326"}, []int64{100, 103, 115, 118}},
		// The exact geometry test after the stored boxes.
		{"bbox polygons", polys, []string{"BBOX", "174.80,-41.30,174.90,-41.20,urn:ogc:def:crs:OGC:1.3:CRS84"}, []int64{1, 3, 6}},
		{"equal", pts, []string{"FILTER", `<fes:Filter ` + fes + `><fes:PropertyIsEqualTo><fes:ValueReference>rank</fes:ValueReference><fes:Literal>2</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>`},
			[]int64{106, 115, 124, 133, 142, 151, 160, 169}},
		{"like and", pts, []string{"FILTER", `<fes:Filter ` + fes + `><fes:And><fes:PropertyIsLike wildCard="*" singleChar="." escapeChar="!"><fes:ValueReference>geopub:name</fes:ValueReference><fes:Literal>Point 1*</fes:Literal></fes:PropertyIsLike>` +
			`<fes:PropertyIsGreaterThanOrEqualTo><fes:ValueReference>rank</fes:ValueReference><fes:Literal>2</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo></fes:And></fes:Filter>`}, []int64{133, 142, 151}},
		{"between or not", pts, []string{"FILTER", `<fes:Filter ` + fes + `><fes:Or><fes:PropertyIsBetween><fes:ValueReference>rank</fes:ValueReference><fes:LowerBoundary><fes:Literal>9</fes:Literal></fes:LowerBoundary><fes:UpperBoundary><fes:Literal>10</fes:Literal></fes:UpperBoundary></fes:PropertyIsBetween>` +
			`<fes:Not><fes:PropertyIsNotEqualTo><fes:ValueReference>name</fes:ValueReference><fes:Literal>Point 3</fes:Literal></fes:PropertyIsNotEqualTo></fes:Not></fes:Or></fes:Filter>`}, []int64{109, 500}},
		{"fes bbox", polys, []string{"FILTER", `<fes:Filter ` + fes + `><fes:BBOX><fes:ValueReference>GEOMETRY</fes:ValueReference><gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>-41.30 174.80</gml:lowerCorner><gml:upperCorner>-41.20 174.90</gml:upperCorner></gml:Envelope></fes:BBOX></fes:Filter>`}, []int64{1, 3, 6}},
		{"intersects", polys, []string{"FILTER", `<fes:Filter ` + fes + `><fes:Intersects><fes:ValueReference>GEOMETRY</fes:ValueReference><gml:Point gml:id="p" srsName="EPSG:4326"><gml:pos>174.83 -41.27</gml:pos></gml:Point></fes:Intersects></fes:Filter>`}, []int64{1, 3}},
		{"disjoint", polys, []string{"FILTER", `<fes:Filter ` + fes + `><fes:Disjoint><fes:ValueReference>GEOMETRY</fes:ValueReference><gml:Point gml:id="p" srsName="EPSG:4326"><gml:pos>174.83 -41.27</gml:pos></gml:Point></fes:Disjoint></fes:Filter>`}, []int64{2, 4, 5, 6}},
		{"resource id", pts, []string{"RESOURCEID", pts[len("geopub:"):] + ".103," + pts[len("geopub:"):] + ".500"}, []int64{103, 500}},
		{"fes resource id", pts, []string{"FILTER", `<fes:Filter ` + fes + `><fes:ResourceId rid="` + pts[len("geopub:"):] + `.106"/></fes:Filter>`}, []int64{106}},
		// OGC Filter 1.1 in WFS 1.1.0 terms.
		{"filter 1.1", pts, []string{"VERSION", "1.1.0", "TYPENAME", pts, "FILTER", `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:PropertyIsLessThan><ogc:PropertyName>rank</ogc:PropertyName><ogc:Literal>1</ogc:Literal></ogc:PropertyIsLessThan></ogc:Filter>`},
			[]int64{100, 109, 118, 127, 136, 145, 154, 163, 172}},
		{"count", pts, []string{"COUNT", "3"}, []int64{100, 103, 106}},
	} {
		if got := f.fids(t, tc.typ, tc.params...); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// PROPERTYNAME: only the properties named (the geometry too only
	// when named).
	var fc struct {
		Features []struct {
			Geometry   json.RawMessage
			Properties map[string]any
		}
	}
	f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "OUTPUTFORMAT", "application/json",
		"COUNT", "1", "PROPERTYNAME", "geopub:rank").json(t, http.StatusOK, "application/json", &fc)
	if len(fc.Features) != 1 || len(fc.Features[0].Properties) != 1 || fc.Features[0].Properties["rank"] != 0.0 || string(fc.Features[0].Geometry) != "null" {
		t.Errorf("propertyName: %+v", fc)
	}
	r := f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "COUNT", "1", "PROPERTYNAME", "GEOMETRY")
	if body := string(r.body); !strings.Contains(body, "<gml:Point") || strings.Contains(body, "geopub:name") {
		t.Errorf("propertyName GEOMETRY: %s", body)
	}
	f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "PROPERTYNAME", "nope").exception(t, 400, "InvalidParameterValue")

	// hits: the number matched, no features.
	r = f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "RESULTTYPE", "hits",
		"BBOX", "-41.31,174.69,-41.275,174.725")
	if !strings.Contains(string(r.body), `numberMatched="4"`) || !strings.Contains(string(r.body), `numberReturned="0"`) {
		t.Errorf("hits: %s", r.body)
	}
	// A filtered page knows the number matched once it is the last; before
	// that it is unknown.
	for _, tc := range []struct{ count, matched string }{{"10", "4"}, {"2", "unknown"}} {
		r = f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "COUNT", tc.count,
			"BBOX", "-41.31,174.69,-41.275,174.725")
		if !strings.Contains(string(r.body), `numberMatched="`+tc.matched+`"`) {
			t.Errorf("count %s: want numberMatched %s: %.300s", tc.count, tc.matched, r.body)
		}
	}
}

// STARTINDEX and COUNT page in feature order; next links follow on.
func testWFSPaging(t *testing.T, f *fixture) {
	pts := wfsName("layer", f.points)
	var all []int64
	for _, p := range f.pointFeatures {
		all = append(all, p.fid)
	}
	// Out of order first (no remembered position), then in order.
	if got := f.fids(t, pts, "STARTINDEX", "20", "COUNT", "4"); !slices.Equal(got, all[20:24]) {
		t.Errorf("startIndex 20: %v, want %v", got, all[20:24])
	}
	var got []int64
	for start := 0; start < len(all); start += 7 {
		got = append(got, f.fids(t, pts, "STARTINDEX", itoa(start), "COUNT", "7")...)
	}
	if !slices.Equal(got, all) {
		t.Errorf("pages %v, want %v", got, all)
	}
	// GML 3.2: numberMatched, numberReturned, and a next link to follow.
	link := f.e.HTTP.URL + "/services/wfs/?" + url.Values{"SERVICE": {"WFS"}, "VERSION": {"2.0.0"}, "REQUEST": {"GetFeature"},
		"TYPENAMES": {pts}, "COUNT": {"10"}}.Encode()
	var ids []string
	for pages := 0; link != ""; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		r := f.get(t, f.reader.Key, link)
		var fc struct {
			Matched  string `xml:"numberMatched,attr"`
			Returned int    `xml:"numberReturned,attr"`
			Next     string `xml:"next,attr"`
			Members  []struct {
				Inner []struct {
					ID string `xml:"id,attr"`
				} `xml:",any"`
			} `xml:"member"`
		}
		if err := xml.Unmarshal(r.body, &fc); err != nil || r.status != 200 {
			t.Fatalf("%d %v: %s", r.status, err, r.body)
		}
		if fc.Matched != "26" || fc.Returned != len(fc.Members) {
			t.Errorf("numberMatched %s, numberReturned %d for %d members", fc.Matched, fc.Returned, len(fc.Members))
		}
		for _, m := range fc.Members {
			ids = append(ids, m.Inner[0].ID)
		}
		link = fc.Next
	}
	if len(ids) != len(all) || ids[25] != pts[len("geopub:"):]+".500" {
		t.Errorf("next links read %v", ids)
	}
}

// SRSNAME reprojects, in the CRS's axis order for the URN form and
// easting first for the short form.
func testWFSSRSName(t *testing.T, f *fixture) {
	pts := wfsName("layer", f.points)
	want := gdalReproject(t, 2193, f.pointFeatures[0].g.FlatCoords())
	for _, tc := range []struct {
		srs  string
		swap bool
	}{{"EPSG:2193", false}, {"urn:ogc:def:crs:EPSG::2193", true}, {"http://www.opengis.net/def/crs/EPSG/0/2193", true}} {
		r := f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "COUNT", "1", "SRSNAME", tc.srs)
		body := string(r.body)
		i := strings.Index(body, "<gml:pos>")
		j := strings.Index(body, "</gml:pos>")
		if r.status != 200 || i < 0 || j < i {
			t.Fatalf("%s: %d %s", tc.srs, r.status, body)
		}
		var x, y float64
		if _, err := fmt.Sscanf(body[i+len("<gml:pos>"):j], "%g %g", &x, &y); err != nil {
			t.Fatal(err)
		}
		if tc.swap {
			x, y = y, x
		}
		if math.Abs(x-want[0]) > 1e-3 || math.Abs(y-want[1]) > 1e-3 {
			t.Errorf("%s: %v %v, want %v", tc.srs, x, y, want)
		}
	}
	// The default CRS of EPSG:4326 in WFS 2.0: latitude first.
	r := f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "COUNT", "1")
	if !strings.Contains(string(r.body), `srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>-41.3 174.7</gml:pos>`) {
		t.Errorf("default CRS: %s", r.body)
	}
}

func testWFSErrors(t *testing.T, f *fixture) {
	key := f.reader.Key
	pts := wfsName("layer", f.points)
	f.wfs(t, key, "VERSION", "2.0.0").exception(t, 400, "MissingParameterValue")
	f.wfs(t, key, "REQUEST", "Transaction", "VERSION", "2.0.0").exception(t, 400, "OperationNotSupported")
	f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0").exception(t, 400, "MissingParameterValue")
	f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "COUNT", "x").exception(t, 400, "InvalidParameterValue")
	f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "SRSNAME", "EPSG:999999").exception(t, 400, "InvalidParameterValue")
	f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "FILTER", "<fes:Filter").exception(t, 400, "InvalidParameterValue")
	f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "FILTER",
		`<Filter><PropertyIsEqualTo><ValueReference>nope</ValueReference><Literal>1</Literal></PropertyIsEqualTo></Filter>`).exception(t, 400, "InvalidParameterValue")
	f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", "geopub:layer-999999").exception(t, 404, "NotFound")
}

// owsWFSScript lists the types, reads all features of one and a bbox,
// lists and describes the stored queries and reads a feature by id,
// printing the answers as JSON. (Not OWSLib's getpropertyvalue: it
// appends its parameters to the service URL with no "?", whatever the
// capabilities say.)
const owsWFSScript = `
import json, sys, re
from owslib.wfs import WebFeatureService
wfs = WebFeatureService(sys.argv[1], version="2.0.0", headers={"Authorization": "key " + sys.argv[2]})
name = sys.argv[3]
ids = lambda r: re.findall(r'gml:id="([^"]+)"', r.read().decode())
out = {
    "types": list(wfs.contents),
    "title": wfs.contents[name].title,
    "all": [i for i in ids(wfs.getfeature(typename=[name])) if not i.endswith(".geom")],
    "bbox": [i for i in ids(wfs.getfeature(typename=[name], bbox=(174.69, -41.31, 174.725, -41.275, "EPSG:4326"))) if not i.endswith(".geom")],
    "storedqueries": [[q.id] + [p.name for p in q.parameters] for q in wfs.storedqueries],
    "byid": [i for i in ids(wfs.getfeature(storedQueryID="urn:ogc:def:query:OGC-WFS::GetFeatureById",
        storedQueryParams={"ID": name.split(":")[1] + ".103"})) if not i.endswith(".geom")],
}
print(json.dumps(out))
`

// OWSLib's WFS 2.0 client lists the types and reads features.
func testWFSOWSLib(t *testing.T, f *fixture) {
	python := requireTool(t, "/usr/bin/python3", "python3-owslib")
	if err := exec.Command(python, "-c", "import owslib.wfs").Run(); err != nil {
		requireTool(t, "/usr/lib/python3/dist-packages/owslib/missing", "python3-owslib")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := wfsName("layer", f.points)
	b, err := exec.CommandContext(ctx, python, "-c", owsWFSScript, f.e.HTTP.URL+"/services/wfs/", f.reader.Key, name).CombinedOutput()
	if err != nil {
		t.Fatalf("owslib: %v\n%s", err, b)
	}
	var got struct {
		Types, All, BBox, ByID []string
		Title                  string
		StoredQueries          [][]string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	local := name[len("geopub:"):]
	if !slices.Contains(got.Types, name) || got.Title != "Wellington points" || len(got.All) != len(f.pointFeatures) {
		t.Errorf("OWSLib read %+v", got)
	}
	if !slices.Equal(got.BBox, []string{local + ".100", local + ".103", local + ".115", local + ".118"}) {
		t.Errorf("OWSLib bbox %v", got.BBox)
	}
	if len(got.StoredQueries) != 1 || !slices.Equal(got.StoredQueries[0], []string{"urn:ogc:def:query:OGC-WFS::GetFeatureById", "ID"}) {
		t.Errorf("OWSLib stored queries %v", got.StoredQueries)
	}
	if !slices.Equal(got.ByID, []string{local + ".103"}) {
		t.Errorf("OWSLib GetFeatureById %v", got.ByID)
	}
}

// The service rule and the scope, as for OGC API Features; a draft is
// never served.
func testWFSAccess(t *testing.T, f *fixture) {
	e := f.e
	pts, private := wfsName("layer", f.points), wfsName("layer", f.private)
	get := func(key, typ string) response {
		return f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", typ, "OUTPUTFORMAT", "application/json")
	}

	t.Run("private", func(t *testing.T) {
		get("", private).exception(t, 404, "NotFound")
		get(f.reader.Key, private).exception(t, 404, "NotFound")
		if r := get(f.owner.Key, private); r.status != 200 {
			t.Errorf("owner: %d %s", r.status, r.body)
		}
		// The key in the query and in the path.
		r := f.get(t, "", e.HTTP.URL+"/services/wfs/?SERVICE=WFS&REQUEST=GetCapabilities&key="+f.owner.Key)
		if !slices.Contains(typeNames(t, r.body), private) || !strings.Contains(string(r.body), "/services;key="+f.owner.Key+"/wfs/") {
			t.Errorf("key parameter: %s", r.body)
		}
		r = f.get(t, "", e.HTTP.URL+"/services;key="+f.owner.Key+"/wfs/?SERVICE=WFS&REQUEST=GetCapabilities")
		if !slices.Contains(typeNames(t, r.body), private) {
			t.Errorf("path key: %s", r.body)
		}
		f.get(t, "", e.HTTP.URL+"/services/wfs/?SERVICE=WFS&REQUEST=GetCapabilities&key=00000000000000000000000000000000").
			exception(t, 401, "NoApplicableCode")
	})

	t.Run("token without wxs:wfs", func(t *testing.T) {
		ex := f.wfs(t, f.noScope, "REQUEST", "GetCapabilities").exception(t, 401, "NoApplicableCode")
		if !strings.Contains(ex.Exception.Text, "wxs:wfs") {
			t.Errorf("%+v does not name the scope", ex)
		}
		if r := get(e.Token(t, f.reader.User, "wxs:wfs"), pts); r.status != 200 {
			t.Errorf("scoped token: %d", r.status)
		}
	})

	t.Run("draft never served", func(t *testing.T) {
		writeVersion(t, e, f.owner.User, f.points, "Draft", "point", []feature{{1, pt(0, 0), map[string]any{"name": "draft"}}}, false)
		waitFresh()
		var fc wfsJSON
		get(f.reader.Key, pts).json(t, 200, "application/json", &fc)
		if len(fc.Features) != len(f.pointFeatures) {
			t.Errorf("%d features, want the published %d", len(fc.Features), len(f.pointFeatures))
		}
	})

	t.Run("disabled service", func(t *testing.T) {
		polys := wfsName("layer", f.polygons)
		f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/wfs/", f.polygons), `{"enabled": false}`, http.StatusOK)
		waitFresh()
		for _, key := range []string{"", f.reader.Key, f.owner.Key} {
			get(key, polys).exception(t, 404, "NotFound")
			r := f.wfs(t, key, "REQUEST", "GetCapabilities")
			if slices.Contains(typeNames(t, r.body), polys) {
				t.Errorf("a disabled type is listed")
			}
		}
		f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/wfs/", f.polygons), `{"enabled": true}`, http.StatusOK)
		waitFresh()
	})
}
