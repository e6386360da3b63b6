package ogc_test

import (
	"cmp"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
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

// TestWFSQueries covers matchCase, SORTBY, the spatial operators beyond
// Intersects and XML POST requests, on each store through the router.
func TestWFSQueries(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		t.Run("match case", func(t *testing.T) { testWFSMatchCase(t, f) })
		t.Run("sortby", func(t *testing.T) { testWFSSortBy(t, f) })
		t.Run("spatial operators", func(t *testing.T) { testWFSSpatialOperators(t, f) })
		t.Run("post", func(t *testing.T) { testWFSPost(t, f) })
		t.Run("gdal", func(t *testing.T) { testWFSQueriesGDAL(t, f) })
		t.Run("owslib post", func(t *testing.T) { testWFSOWSLibPost(t, f) })
	})
}

// pointsWhere are the fids of the point features whose name keeps keep.
func (f *fixture) pointsWhere(keep func(name string) bool) []int64 {
	out := []int64{}
	for _, p := range f.pointFeatures {
		if keep(p.attrs["name"].(string)) {
			out = append(out, p.fid)
		}
	}
	return out
}

func fesFilter(body string) string { return `<fes:Filter ` + fes + `>` + body + `</fes:Filter>` }

// FES 2.0 7.7.3.2: "matchCase … shall indicate whether string comparisons
// are case sensitive (true, the default) or not (false)".
func testWFSMatchCase(t *testing.T, f *fixture) {
	pts := wfsName("layer", f.points)
	eq := func(op, matchCase, lit string) string {
		return fesFilter(`<fes:` + op + matchCase + `><fes:ValueReference>name</fes:ValueReference><fes:Literal>` + lit + `</fes:Literal></fes:` + op + `>`)
	}
	like := func(matchCase, lit string) string {
		return fesFilter(`<fes:PropertyIsLike wildCard="*" singleChar="." escapeChar="!"` + matchCase + `><fes:ValueReference>name</fes:ValueReference><fes:Literal>` + lit + `</fes:Literal></fes:PropertyIsLike>`)
	}
	for _, tc := range []struct {
		name, filter string
		want         []int64
	}{
		{"equal, case ignored", eq("PropertyIsEqualTo", ` matchCase="false"`, "pOINT 3"), []int64{109}},
		{"equal, case kept", eq("PropertyIsEqualTo", ` matchCase="true"`, "pOINT 3"), []int64{}},
		{"equal, default", eq("PropertyIsEqualTo", ``, "pOINT 3"), []int64{}},
		{"not equal, case ignored", eq("PropertyIsNotEqualTo", ` matchCase="false"`, "NOWHERE"), f.pointsWhere(func(n string) bool { return n != "Nowhere" })},
		{"not equal, case kept", eq("PropertyIsNotEqualTo", ``, "NOWHERE"), f.pointsWhere(func(string) bool { return true })},
		{"like, case ignored", like(` matchCase="false"`, "point 1*"), f.pointsWhere(func(n string) bool { return strings.HasPrefix(n, "Point 1") })},
		{"like, case kept", like(``, "point 1*"), []int64{}},
		// Every binary comparison takes matchCase (BinaryComparisonOpType).
		{"greater or equal, case ignored", eq("PropertyIsGreaterThanOrEqualTo", ` matchCase="false"`, "POINT 3"),
			f.pointsWhere(func(n string) bool { return strings.ToLower(n) >= "point 3" })},
	} {
		if got := f.fids(t, pts, "FILTER", tc.filter); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// OGC Filter 1.1 in WFS 1.1.0 has the same attribute.
	got := f.fids(t, pts, "VERSION", "1.1.0", "TYPENAME", pts, "FILTER", `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:PropertyIsEqualTo matchCase="false">`+
		`<ogc:PropertyName>name</ogc:PropertyName><ogc:Literal>point 10</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>`)
	if !slices.Equal(got, []int64{130}) {
		t.Errorf("filter 1.1: %v", got)
	}
}

// sortedPoints is the points in the order of SORTBY=rank DESC,name ASC:
// a missing rank sorts after every value (so first, descending), ties by
// feature id.
func (f *fixture) sortedPoints() []int64 {
	ps := slices.Clone(f.pointFeatures)
	slices.SortStableFunc(ps, func(a, b feature) int {
		ra, oka := a.attrs["rank"].(int64)
		rb, okb := b.attrs["rank"].(int64)
		switch {
		case !oka && okb:
			return -1
		case oka && !okb:
			return 1
		case ra != rb:
			return cmp.Compare(rb, ra)
		}
		return cmp.Or(strings.Compare(a.attrs["name"].(string), b.attrs["name"].(string)), cmp.Compare(a.fid, b.fid))
	})
	out := []int64{}
	for _, p := range ps {
		out = append(out, p.fid)
	}
	return out
}

// WFS 2.0 7.9.2.4.5: SORTBY=rank DESC,name ASC; STARTINDEX and COUNT page
// the sorted match and next links follow it.
func testWFSSortBy(t *testing.T, f *fixture) {
	pts := wfsName("layer", f.points)
	want := f.sortedPoints()
	if want[0] != 112 || want[1] != 500 {
		t.Fatalf("fixture: %v", want)
	}
	if got := f.fids(t, pts, "SORTBY", "rank DESC,geopub:name ASC"); !slices.Equal(got, want) {
		t.Errorf("sorted %v, want %v", got, want)
	}
	var paged []int64
	for start := 0; start < len(want); start += 7 {
		paged = append(paged, f.fids(t, pts, "SORTBY", "rank DESC,name", "STARTINDEX", itoa(start), "COUNT", "7")...)
	}
	if !slices.Equal(paged, want) {
		t.Errorf("pages %v, want %v", paged, want)
	}
	// Filtered and sorted, in WFS 1.1.0 spelling (D), in feature id order
	// among equal ranks.
	got := f.fids(t, pts, "VERSION", "1.1.0", "TYPENAME", pts, "SORTBY", "rank D", "MAXFEATURES", "3")
	if !slices.Equal(got, []int64{112, 500, 106}) {
		t.Errorf("1.1.0 rank D: %v", got)
	}
	// GML next links carry SORTBY.
	link := f.e.HTTP.URL + "/services/wfs/?" + url.Values{"SERVICE": {"WFS"}, "VERSION": {"2.0.0"}, "REQUEST": {"GetFeature"},
		"TYPENAMES": {pts}, "COUNT": {"10"}, "SORTBY": {"rank DESC,name ASC"}}.Encode()
	var ids []int64
	for pages := 0; link != ""; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		r := f.get(t, f.reader.Key, link)
		var fc struct {
			Matched string `xml:"numberMatched,attr"`
			Next    string `xml:"next,attr"`
			Members []struct {
				Inner []struct {
					ID string `xml:"id,attr"`
				} `xml:",any"`
			} `xml:"member"`
		}
		if err := xml.Unmarshal(r.body, &fc); err != nil || r.status != 200 || fc.Matched != "26" {
			t.Fatalf("%d %v numberMatched %s: %.300s", r.status, err, fc.Matched, r.body)
		}
		for _, m := range fc.Members {
			var n int64
			fmt.Sscanf(m.Inner[0].ID[strings.LastIndexByte(m.Inner[0].ID, '.')+1:], "%d", &n)
			ids = append(ids, n)
		}
		link = fc.Next
	}
	if !slices.Equal(ids, want) {
		t.Errorf("next links read %v, want %v", ids, want)
	}
	key := f.reader.Key
	for _, bad := range []string{"nope", "name UP", "geometry"} {
		ex := f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", pts, "SORTBY", bad).exception(t, 400, "InvalidParameterValue")
		if ex.Exception.Locator != "sortBy" {
			t.Errorf("%s: locator %q", bad, ex.Exception.Locator)
		}
	}
}

// The DE-9IM operators of FES 2.0 (7.8.3, Table 1 of OGC 06-103r4) on
// the polygons around the box 174.80..174.90, -41.30..-41.20.
func testWFSSpatialOperators(t *testing.T, f *fixture) {
	polys := wfsName("layer", f.polygons)
	env := `<gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>-41.30 174.80</gml:lowerCorner><gml:upperCorner>-41.20 174.90</gml:upperCorner></gml:Envelope>`
	point := `<gml:Point gml:id="p" srsName="EPSG:4326"><gml:pos>174.83 -41.27</gml:pos></gml:Point>`
	// Beside polygon 1 (174.82..174.84, -41.28..-41.26), sharing its edge.
	beside := `<gml:Polygon gml:id="b" srsName="EPSG:4326"><gml:exterior><gml:LinearRing><gml:posList>174.84 -41.28 174.86 -41.28 174.86 -41.26 174.84 -41.26 174.84 -41.28</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>`
	same := `<gml:Polygon gml:id="s" srsName="EPSG:4326"><gml:exterior><gml:LinearRing><gml:posList>174.82 -41.28 174.84 -41.28 174.84 -41.26 174.82 -41.26 174.82 -41.28</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>`
	// North-south through polygon 1 and the hole of polygon 4, inside 3.
	line := `<gml:LineString gml:id="l" srsName="EPSG:4326"><gml:posList>174.83 -41.34 174.83 -41.10</gml:posList></gml:LineString>`
	operator := func(name, g string) string {
		return `<fes:` + name + `><fes:ValueReference>GEOMETRY</fes:ValueReference>` + g + `</fes:` + name + `>`
	}
	op := func(name, g string) string { return fesFilter(operator(name, g)) }
	for _, tc := range []struct {
		name, filter string
		want         []int64
	}{
		{"within", op("Within", env), []int64{1}},
		{"contains", op("Contains", point), []int64{1, 3}},
		// 3 holds the box, 4's hole holds it: only 6 shares part of it.
		{"overlaps", op("Overlaps", env), []int64{6}},
		{"touches", op("Touches", beside), []int64{1}},
		{"equals", op("Equals", same), []int64{1}},
		{"crosses", op("Crosses", line), []int64{1, 4}},
		{"disjoint", op("Disjoint", env), []int64{2, 4, 5}},
		{"intersects and not within", fesFilter(`<fes:And>` + operator("Intersects", env) + `<fes:Not>` + operator("Within", env) + `</fes:Not></fes:And>`), []int64{3, 6}},
	} {
		if got := f.fids(t, polys, "FILTER", tc.filter); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	testWFSDistance(t, f, point, env)
	// The capabilities list exactly the operators served.
	for _, v := range []string{"2.0.0", "1.1.0"} {
		r := f.wfs(t, f.reader.Key, "REQUEST", "GetCapabilities", "ACCEPTVERSIONS", v)
		var caps struct {
			Ops []struct {
				Name string `xml:"name,attr"`
			} `xml:"Filter_Capabilities>Spatial_Capabilities>SpatialOperators>SpatialOperator"`
		}
		if err := xml.Unmarshal(r.body, &caps); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, o := range caps.Ops {
			names = append(names, o.Name)
		}
		if want := []string{"BBOX", "Intersects", "Disjoint", "Equals", "Touches", "Within", "Overlaps", "Crosses", "Contains", "DWithin", "Beyond"}; !slices.Equal(names, want) {
			t.Errorf("%s: spatial operators %v, want %v", v, names, want)
		}
	}
}

// FES 2.0 7.8.3.7: DWithin holds when the geometries are "within the
// specified distance", Beyond when "not within"; the distance is
// geodesic, in the Distance's uom. The points lie on a grid 0.02° apart
// around (174.74, -41.26), fid 136: about 1,673 m apart east-west, 2,220 m
// north-south and 2,780 m diagonally, far from every distance asked.
func testWFSDistance(t *testing.T, f *fixture, polyPoint, env string) {
	pts, polys := wfsName("layer", f.points), wfsName("layer", f.polygons)
	center := `<gml:Point gml:id="c" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>-41.26 174.74</gml:pos></gml:Point>`
	dist := func(op, g, uom, d string) string {
		return fesFilter(`<fes:` + op + `><fes:ValueReference>GEOMETRY</fes:ValueReference>` + g +
			`<fes:Distance uom="` + uom + `">` + d + `</fes:Distance></fes:` + op + `>`)
	}
	var beyond []int64
	for _, p := range f.pointFeatures {
		if p.g != nil && !slices.Contains([]int64{133, 136, 139}, p.fid) {
			beyond = append(beyond, p.fid)
		}
	}
	for _, tc := range []struct {
		name, layer, filter string
		want                []int64
	}{
		{"within 1 km", pts, dist("DWithin", center, "km", "1"), []int64{136}},
		{"within 2,000 m", pts, dist("DWithin", center, "m", "2000"), []int64{133, 136, 139}},
		{"within 2,500 m by EPSG's metre", pts, dist("DWithin", center, "urn:ogc:def:uom:EPSG::9001", "2500"), []int64{121, 133, 136, 139, 151}},
		{"beyond 2,000 m", pts, dist("Beyond", center, "m", "2000"), beyond},
		// A point inside polygons 1 and 3 is at 0 m from them.
		{"polygons within 0 m", polys, dist("DWithin", polyPoint, "m", "0"), []int64{1, 3}},
	} {
		if got := f.fids(t, tc.layer, "FILTER", tc.filter); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// Filter 1.1 names the unit "units".
	got := f.fids(t, pts, "VERSION", "1.1.0", "TYPENAME", pts, "FILTER", `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml">`+
		`<ogc:DWithin><ogc:PropertyName>GEOMETRY</ogc:PropertyName><gml:Point srsName="EPSG:4326"><gml:pos>174.74 -41.26</gml:pos></gml:Point>`+
		`<ogc:Distance units="m">2000</ogc:Distance></ogc:DWithin></ogc:Filter>`)
	if !slices.Equal(got, []int64{133, 136, 139}) {
		t.Errorf("Filter 1.1 DWithin: %v", got)
	}
	for name, filter := range map[string]string{
		"an angle":                      dist("DWithin", center, "deg", "1"),
		"no unit":                       dist("DWithin", center, "", "1"),
		"a negative distance":           dist("Beyond", center, "m", "-1"),
		"not a number":                  dist("DWithin", center, "m", "far"),
		"a box from non-point features": dist("DWithin", env, "m", "10"),
	} {
		layer := pts
		if strings.HasPrefix(name, "a box") {
			layer = polys
		}
		t.Run(name, func(t *testing.T) {
			f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", layer, "FILTER", filter).exception(t, 400, "InvalidParameterValue")
		})
	}
}

// post sends body to the WFS endpoint.
func (f *fixture) post(t *testing.T, key, contentType, body string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.e.HTTP.URL+"/services/wfs/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "key "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func jsonFIDs(t *testing.T, r response) []int64 {
	t.Helper()
	var fc wfsJSON
	r.json(t, http.StatusOK, "application/json", &fc)
	out := []int64{}
	for _, ft := range fc.Features {
		var n int64
		fmt.Sscanf(ft.ID[strings.LastIndexByte(ft.ID, '.')+1:], "%d", &n)
		out = append(out, n)
	}
	return out
}

// WFS 2.0 7.6.4 and 11.2.2: the XML encoding of GetFeature, and of
// GetCapabilities and DescribeFeatureType.
func testWFSPost(t *testing.T, f *fixture) {
	pts := wfsName("layer", f.points)
	key := f.reader.Key
	doc := `<wfs:GetFeature service="WFS" version="2.0.0" count="4" startIndex="1" outputFormat="application/json" xmlns:wfs="http://www.opengis.net/wfs/2.0" ` + fes + `>` +
		`<wfs:Query typeNames="` + pts + `" srsName="urn:ogc:def:crs:EPSG::4326"><fes:Filter><fes:PropertyIsLike wildCard="*" singleChar="." escapeChar="!" matchCase="false">` +
		`<fes:ValueReference>name</fes:ValueReference><fes:Literal>POINT 1*</fes:Literal></fes:PropertyIsLike></fes:Filter>` +
		`<fes:SortBy><fes:SortProperty><fes:ValueReference>name</fes:ValueReference><fes:SortOrder>DESC</fes:SortOrder></fes:SortProperty></fes:SortBy></wfs:Query></wfs:GetFeature>`
	// Point 1, 10..19 by name descending: 19, 18, 17, 16, ...; from the
	// second, four.
	r := f.post(t, key, "text/xml", doc)
	if got := jsonFIDs(t, r); !slices.Equal(got, []int64{154, 151, 148, 145}) {
		t.Errorf("POST GetFeature: %v", got)
	}
	// Its next link is the same query as KVP, from the next start.
	var links struct {
		Links []struct{ Rel, Href string }
	}
	if err := json.Unmarshal(r.body, &links); err != nil || len(links.Links) != 1 || links.Links[0].Rel != "next" {
		t.Fatalf("POST GetFeature links: %v %s", err, r.body)
	}
	if got := jsonFIDs(t, f.get(t, key, links.Links[0].Href)); !slices.Equal(got, []int64{142, 139, 136, 133}) {
		t.Errorf("POST GetFeature, next page: %v", got)
	}
	doc11 := `<wfs:GetFeature service="WFS" version="1.1.0" maxFeatures="2" resultType="results" xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc">` +
		`<wfs:Query typeName="` + pts + `"><ogc:Filter><ogc:PropertyIsEqualTo><ogc:PropertyName>rank</ogc:PropertyName><ogc:Literal>2</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter></wfs:Query></wfs:GetFeature>`
	r = f.post(t, key, "application/xml", doc11)
	if r.status != 200 || !strings.Contains(string(r.body), `numberOfFeatures="2"`) || !strings.Contains(string(r.body), `gml:id="`+pts[len("geopub:"):]+`.106"`) {
		t.Errorf("POST 1.1.0 GetFeature: %d %.400s", r.status, r.body)
	}
	r = f.post(t, key, "text/xml", `<wfs:GetCapabilities service="WFS" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:ows="http://www.opengis.net/ows/1.1"><ows:AcceptVersions><ows:Version>2.0.0</ows:Version></ows:AcceptVersions></wfs:GetCapabilities>`)
	for _, s := range []string{"<ows:Post", `name="XMLEncoding"><ows:NoValues></ows:NoValues><ows:DefaultValue>TRUE`, `name="ImplementsSorting"><ows:NoValues></ows:NoValues><ows:DefaultValue>TRUE`} {
		if r.status != 200 || !strings.Contains(strings.ReplaceAll(string(r.body), "<ows:NoValues/>", "<ows:NoValues></ows:NoValues>"), s) {
			t.Errorf("POST GetCapabilities lacks %s: %.300s", s, r.body)
		}
	}
	r = f.post(t, key, "text/xml", `<wfs:DescribeFeatureType service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0"><wfs:TypeName>`+pts+`</wfs:TypeName></wfs:DescribeFeatureType>`)
	if r.status != 200 || !strings.Contains(string(r.body), `name="rank" type="xsd:long"`) {
		t.Errorf("POST DescribeFeatureType: %d %.300s", r.status, r.body)
	}
	// KVP as a form.
	form := url.Values{"SERVICE": {"WFS"}, "VERSION": {"2.0.0"}, "REQUEST": {"GetFeature"}, "TYPENAMES": {pts}, "COUNT": {"2"}, "OUTPUTFORMAT": {"application/json"}}
	if got := jsonFIDs(t, f.post(t, key, "application/x-www-form-urlencoded", form.Encode())); !slices.Equal(got, []int64{100, 103}) {
		t.Errorf("POST form: %v", got)
	}
	// Refusals, as exception reports.
	f.post(t, key, "text/xml", `<wfs:GetFeature service="WFS" version="2.0.0"><wfs:Query`).exception(t, 400, "OperationParsingFailed")
	f.post(t, key, "text/xml", "<GetFeature>"+strings.Repeat("<a/>", 300000)+"</GetFeature>").exception(t, 413, "OperationParsingFailed")
	f.post(t, key, "text/xml", `<Transaction service="WFS" version="2.0.0"/>`).exception(t, 400, "OperationNotSupported")
	f.post(t, key, "text/xml", strings.Replace(doc, "<fes:ValueReference>name</fes:ValueReference><fes:Literal>", "<fes:ValueReference>nope</fes:ValueReference><fes:Literal>", 1)).
		exception(t, 400, "InvalidParameterValue")
	f.post(t, key, "text/xml", strings.Replace(doc, `<fes:ValueReference>name</fes:ValueReference><fes:SortOrder>`, `<fes:ValueReference>nope</fes:ValueReference><fes:SortOrder>`, 1)).
		exception(t, 400, "InvalidParameterValue")
}

// GDAL's WFS driver sends ILIKE as PropertyIsLike matchCase="false" and
// ORDER BY of its SQL as SORTBY (the capabilities say ImplementsSorting).
func testWFSQueriesGDAL(t *testing.T, f *fixture) {
	ogr2ogr := requireTool(t, "ogr2ogr", "gdal-bin")
	pts := wfsName("layer", f.points)
	for _, tc := range []struct {
		args []string
		sent string
		want []int64
	}{
		{[]string{"-where", "name ILIKE 'point 1%'"}, "matchCase='false'", f.pointsWhere(func(n string) bool { return strings.HasPrefix(n, "Point 1") })},
		{[]string{"-sql", `SELECT * FROM "` + pts + `" ORDER BY rank DESC`}, "SORTBY=rank", nil},
	} {
		out := filepath.Join(t.TempDir(), "out.geojson")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		args := append([]string{"-f", "GeoJSON", out}, tc.args...)
		args = append(args, "WFS:"+f.e.HTTP.URL+"/services/wfs/?key="+f.reader.Key)
		if tc.args[0] == "-where" {
			args = append(args, pts)
		}
		cmd := exec.CommandContext(ctx, ogr2ogr, args...)
		cmd.Env = append(os.Environ(), "CPL_DEBUG=ON")
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("ogr2ogr %v: %v\n%s", tc.args, err, b)
		}
		if dec, _ := url.QueryUnescape(string(b)); !strings.Contains(string(b), tc.sent) && !strings.Contains(dec, tc.sent) {
			t.Errorf("%v: GDAL did not send %s:\n%s", tc.args, tc.sent, b)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var fc struct {
			Features []struct {
				Properties struct {
					GMLID string `json:"gml_id"`
					Rank  *int64 `json:"rank"`
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
		if tc.want != nil && !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v, want %v", tc.args, got, tc.want)
		}
		if tc.want == nil {
			// rank DESC, nulls first, ties by feature id.
			if len(got) != len(f.pointFeatures) || got[0] != 112 || got[1] != 500 || got[2] != 106 {
				t.Errorf("%v: %v", tc.args, got)
			}
		}
	}
}

// owsPostScript reads a type by POST with a filter and a sort.
const owsPostScript = `
import json, sys, re
from owslib.wfs import WebFeatureService
wfs = WebFeatureService(sys.argv[1], version="2.0.0", headers={"Authorization": "key " + sys.argv[2]})
name = sys.argv[3]
from lxml import etree
flt = etree.fromstring('<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsEqualTo matchCase="false"><fes:ValueReference>name</fes:ValueReference><fes:Literal>NOWHERE</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>')
ids = lambda r: [i for i in re.findall(r'gml:id="([^"]+)"', r.read().decode()) if not i.endswith(".geom")]
print(json.dumps({
    "filter": ids(wfs.getfeature(typename=[name], filter=flt, method="Post")),
    "sorted": ids(wfs.getfeature(typename=[name], sortby=["name"], maxfeatures=3, method="Post")),
}))
`

// OWSLib's getfeature(method="Post") finds the POST URL in the
// capabilities and sends a wfs:GetFeature document (its set_filter takes
// an element: from a string it looks for a Filter below the root).
func testWFSOWSLibPost(t *testing.T, f *fixture) {
	python := requireTool(t, "/usr/bin/python3", "python3-owslib")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := wfsName("layer", f.points)
	b, err := exec.CommandContext(ctx, python, "-W", "ignore", "-c", owsPostScript, f.e.HTTP.URL+"/services/wfs/", f.reader.Key, name).CombinedOutput()
	if err != nil {
		t.Fatalf("owslib: %v\n%s", err, b)
	}
	var got struct{ Filter, Sorted []string }
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	local := name[len("geopub:"):]
	// By name: Hostile's "<script…" first, then "Nowhere", "Point 0".
	if !slices.Equal(got.Filter, []string{local + ".500"}) || !slices.Equal(got.Sorted, []string{local + ".121", local + ".500", local + ".100"}) {
		t.Errorf("OWSLib POST %+v", got)
	}
}
