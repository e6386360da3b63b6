package queryapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/queryapi"
)

// Wellington's Beehive, the centre of the fixtures.
const cLon, cLat = 174.7762, -41.2784

type fixture struct {
	e                      *env
	owner, reader          *servertest.User
	points, lines, regions int
}

func newFixture(t *testing.T, e *env) fixture {
	f := fixture{e: e, owner: e.NewUser(t, "Owner"), reader: e.NewUser(t, "Reader")}
	at := func(dx, dy float64) *geom.Point { return pt(offset(cLon, cLat, dx, dy)) }
	f.points = publishLayer(t, e, f.owner.User, "Points", "point", []string{"name", "rank"}, []feature{
		{1, at(100, 0), map[string]any{"rank": int64(2), "name": "East 100"}},
		{2, at(0, 300), map[string]any{"name": "North 300", "rank": int64(3)}},
		{3, at(-1500, 0), map[string]any{"name": "West 1500", "rank": nil}},
		{4, at(0, -50), map[string]any{"name": "South 50 <&>", "rank": int64(1)}},
		{5, nil, map[string]any{"name": "Nowhere"}},
	})
	x0, y0 := offset(cLon, cLat, -1000, 200)
	x1, y1 := offset(cLon, cLat, 1000, 200)
	f.lines = publishLayer(t, e, f.owner.User, "Lines", "linestring", []string{"road"}, []feature{
		{10, geom.NewLineStringFlat(geom.XY, []float64{x0, y0, x1, y1}), map[string]any{"road": "Lambton Quay"}},
	})
	a, b := offset(cLon, cLat, -100, -100)
	c, d := offset(cLon, cLat, 100, 100)
	p, q := offset(cLon, cLat, 500, -100)
	r, s := offset(cLon, cLat, 700, 100)
	f.regions = publishLayer(t, e, f.owner.User, "Regions", "polygon", []string{"zone"}, []feature{
		{20, geom.NewPolygonFlat(geom.XY, []float64{a, b, c, b, c, d, a, d, a, b}, []int{10}), map[string]any{"zone": "inner"}},
		{21, geom.NewPolygonFlat(geom.XY, []float64{p, q, r, q, r, s, p, s, p, q}, []int{10}), map[string]any{"zone": "east"}},
	})
	return f
}

// get queries a point-query path with parameters and headers.
func get(t *testing.T, e *env, path string, params url.Values, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.HTTP.URL+path+"?"+params.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func params(key string, layer int, extra ...string) url.Values {
	v := url.Values{"key": {key}, "layer": {fmt.Sprint(layer)}, "x": {fmt.Sprint(cLon)}, "y": {fmt.Sprint(cLat)}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return v
}

type jsonResult struct {
	VectorQuery struct {
		Layers map[string]struct {
			CRS struct {
				Type       string
				Properties struct{ Name string }
			} `json:"crs"`
			Type     string `json:"type"`
			Error    string `json:"error"`
			Features []struct {
				Distance   float64         `json:"distance"`
				Type       string          `json:"type"`
				ID         int64           `json:"id"`
				Properties json.RawMessage `json:"properties"`
				Geometry   json.RawMessage `json:"geometry"`
			} `json:"features"`
			FieldNames []string `json:"field_names"`
		} `json:"layers"`
	} `json:"vectorQuery"`
}

func TestVectorQueryJSON(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		resp, body := get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "max_results", "10"), nil)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.geopub.vectorQuery+json") {
			t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var r jsonResult
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		l := r.VectorQuery.Layers[fmt.Sprint(f.points)]
		if l.Type != "FeatureCollection" || l.CRS.Type != "name" || l.CRS.Properties.Name != "EPSG:4326" {
			t.Fatalf("collection %s", body)
		}
		// Nearest first, within the default 1000 m: 4 (50 m), 1 (100 m), 2 (300 m).
		var ids []int64
		for _, ft := range l.Features {
			ids = append(ids, ft.ID)
			if ft.Type != "Feature" || ft.Geometry != nil {
				t.Fatalf("feature %+v", ft)
			}
		}
		if fmt.Sprint(ids) != "[4 1 2]" {
			t.Fatalf("ids %v: %s", ids, body)
		}
		for i, want := range []float64{50, 100, 300} {
			if d := l.Features[i].Distance; math.Abs(d-want) > 0.6 {
				t.Errorf("distance %d = %f, want %f", i, d, want)
			}
		}
		// Properties keep the layer's field order.
		if got := string(l.Features[1].Properties); got != `{"name":"East 100","rank":2}` {
			t.Errorf("properties %s", got)
		}
		// max_results defaults to 1; radius widens the search.
		_, body = get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points), nil)
		r = jsonResult{}
		_ = json.Unmarshal(body, &r)
		if n := len(r.VectorQuery.Layers[fmt.Sprint(f.points)].Features); n != 1 {
			t.Errorf("default max_results gave %d", n)
		}
		_, body = get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "radius", "2000", "max_results", "100"), nil)
		r = jsonResult{}
		_ = json.Unmarshal(body, &r)
		if n := len(r.VectorQuery.Layers[fmt.Sprint(f.points)].Features); n != 4 {
			t.Errorf("radius 2000 gave %d: %s", n, body)
		}
		_, body = get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "radius", "0", "max_results", "100"), nil)
		if !strings.Contains(string(body), `"features":[]`) {
			t.Errorf("radius 0: %s", body)
		}
		// Several layers; a point inside a polygon is at distance 0;
		// geometry in EPSG:4326 GeoJSON; field names from 1.1.
		p := params(f.reader.Key, f.regions, "max_results", "5", "geometry", "true", "with_field_names", "true")
		p.Add("layer", fmt.Sprint(f.lines))
		_, body = get(t, e, "/services/query/v1/vector.json", p, nil)
		r = jsonResult{}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		regions, lines := r.VectorQuery.Layers[fmt.Sprint(f.regions)], r.VectorQuery.Layers[fmt.Sprint(f.lines)]
		if len(regions.Features) != 2 || regions.Features[0].ID != 20 || regions.Features[0].Distance != 0 ||
			math.Abs(regions.Features[1].Distance-500) > 1 || fmt.Sprint(regions.FieldNames) != "[zone]" {
			t.Fatalf("regions %s", body)
		}
		if !strings.HasPrefix(string(regions.Features[0].Geometry), `{"type":"Polygon","coordinates":[[[174.77`) {
			t.Fatalf("geometry %s", regions.Features[0].Geometry)
		}
		if len(lines.Features) != 1 || math.Abs(lines.Features[0].Distance-200) > 1 {
			t.Fatalf("lines %s", body)
		}
		// The legacy path answers the same.
		_, legacy := get(t, e, "/api/vectorQuery.json", p, nil)
		if !bytes.Equal(legacy, body) {
			t.Fatalf("legacy path differs:\n%s\n%s", legacy, body)
		}
	})
}

func TestVectorQueryParameters(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		base := params(f.reader.Key, f.points)
		for name, change := range map[string][2]string{
			"MaxResultsZero":  {"max_results", "0"},
			"MaxResultsBig":   {"max_results", "101"},
			"MaxResultsWords": {"max_results", "ten"},
			"RadiusNegative":  {"radius", "-1"},
			"RadiusBig":       {"radius", "100001"},
			"RadiusFloat":     {"radius", "1.5"},
			"XOutOfRange":     {"x", "181"},
			"YOutOfRange":     {"y", "-91"},
			"XNotNumber":      {"x", "east"},
			"XMissing":        {"x", ""},
			"LayerMissing":    {"layer", ""},
			"LayerNotID":      {"layer", "roads"},
			"GeometryMaybe":   {"geometry", "maybe"},
			"UnknownVersion":  {"v", "9"},
		} {
			t.Run(name, func(t *testing.T) {
				p := url.Values{}
				for k, v := range base {
					p[k] = v
				}
				if change[1] == "" {
					p.Del(change[0])
				} else {
					p.Set(change[0], change[1])
				}
				resp, body := get(t, e, "/services/query/v1/vector.json", p, nil)
				var msg struct{ Error string }
				_ = json.Unmarshal(body, &msg)
				if resp.StatusCode != http.StatusBadRequest || msg.Error == "" {
					t.Fatalf("%d %s", resp.StatusCode, body)
				}
				// Under JSONP the same error is a 200 with a string message.
				p.Set("callback", "handle")
				resp, body = get(t, e, "/services/query/v1/vector.json", p, nil)
				if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), `/**/handle("`) || !strings.Contains(string(body), msg.Error[:10]) {
					t.Fatalf("JSONP %d %s", resp.StatusCode, body)
				}
			})
		}
		// Unknown parameters are ignored; the maximum values are accepted.
		resp, _ := get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "max_results", "100", "radius", "100000", "colour", "red"), nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("limits: %d", resp.StatusCode)
		}
		// A callback that is not an identifier is refused, never echoed.
		resp, body := get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "callback", "alert(1)//"), nil)
		if resp.StatusCode != http.StatusBadRequest || strings.Contains(string(body), "alert(1)") {
			t.Fatalf("bad callback %d %s", resp.StatusCode, body)
		}
		// JSONP success.
		resp, body = get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "callback", "app.cb_1"), nil)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/javascript") ||
			!strings.HasPrefix(string(body), `/**/app.cb_1({"vectorQuery":`) || !strings.HasSuffix(string(body), ");") {
			t.Fatalf("JSONP %s %s", resp.Header.Get("Content-Type"), body)
		}
		// with_field_names is a 1.1 parameter.
		resp, _ = get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "with_field_names", "true", "v", "1.0"), nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("with_field_names on 1.0: %d", resp.StatusCode)
		}
		resp, _ = get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "with_field_names", "true"), map[string]string{"Accept": "application/vnd.geopub.vectorQuery.1+json"})
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("with_field_names pinned to 1 by Accept: %d", resp.StatusCode)
		}
	})
}

func TestVectorQueryAccess(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		// No key: 401; a key without the query scope: 401.
		p := params("", f.points)
		p.Del("key")
		if resp, _ := get(t, e, "/services/query/v1/vector.json", p, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("no key: %d", resp.StatusCode)
		}
		tiles := e.Token(t, f.reader.User, "tiles")
		resp, body := get(t, e, "/services/query/v1/vector.json", params(tiles, f.points), nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "query") || resp.Header.Get("Accepted-OAuth-Scopes") != "query" {
			t.Fatalf("wrong scope: %d %s %v", resp.StatusCode, body, resp.Header)
		}
		query := e.Token(t, f.reader.User, "query")
		if resp, _ := get(t, e, "/services/query/v1/vector.json", params(query, f.points), nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("query scope: %d", resp.StatusCode)
		}
		// An unknown layer and a private one answer alike.
		_, unknown := get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, 99999), nil)
		apiCall(t, e, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/permissions/", f.points), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, f.owner.ID), http.StatusOK)
		waitFresh()
		resp, private := get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points), nil)
		if resp.StatusCode != http.StatusNotFound || string(private) != strings.Replace(string(unknown), "99999", fmt.Sprint(f.points), 1) {
			t.Fatalf("private %d %s vs unknown %s", resp.StatusCode, private, unknown)
		}
		// The owner still queries it; with the service disabled, nobody.
		if resp, _ := get(t, e, "/services/query/v1/vector.json", params(f.owner.Key, f.points), nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("owner: %d", resp.StatusCode)
		}
		apiCall(t, e, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/spatial-query-vector/", f.points), `{"enabled": false}`, http.StatusOK)
		waitFresh()
		if resp, _ := get(t, e, "/services/query/v1/vector.json", params(f.owner.Key, f.points), nil); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("disabled: %d", resp.StatusCode)
		}
		// One answering layer among several: 200 with per-layer errors.
		p = params(f.reader.Key, f.lines)
		p.Add("layer", "99999")
		resp, body = get(t, e, "/services/query/v1/vector.json", p, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"99999":{"error":"Layer 99999 was not found`) {
			t.Fatalf("mixed %d %s", resp.StatusCode, body)
		}
	})
}

func TestVectorQueryFormats(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		p := params(f.reader.Key, f.regions, "max_results", "5", "geometry", "true", "with_field_names", "true")
		p.Add("layer", fmt.Sprint(f.points))
		p.Add("layer", fmt.Sprint(f.lines))

		// XML: parsed as XML, GML 3 geometry with srsName.
		for _, c := range []struct{ path, accept string }{
			{"/services/query/v1/vector.xml", ""},
			{"/services/query/v1/vector", "application/vnd.geopub.vectorQuery+xml"},
			{"/api/vectorQuery/", "text/xml"},
		} {
			resp, body := get(t, e, c.path, p, map[string]string{"Accept": c.accept})
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.geopub.vectorQuery+xml") {
				t.Fatalf("%s %s: %d %s %s", c.path, c.accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			var doc struct {
				XMLName xml.Name `xml:"vectorQuery"`
				Layers  []struct {
					ID      string `xml:"id,attr"`
					Members []struct {
						Feature struct {
							Distance float64 `xml:"distance,attr"`
							Geometry struct {
								Inner []byte `xml:",innerxml"`
							} `xml:"geometry"`
							Attributes struct {
								Inner []byte `xml:",innerxml"`
							} `xml:"attributes"`
						} `xml:"feature"`
					} `xml:"featureMember"`
				} `xml:"layers>layer"`
			}
			if err := xml.Unmarshal(body, &doc); err != nil {
				t.Fatalf("not XML: %v\n%s", err, body)
			}
			if len(doc.Layers) != 3 || len(doc.Layers[0].Members) != 2 || len(doc.Layers[1].Members) != 3 {
				t.Fatalf("xml layers %s", body)
			}
			poly := string(doc.Layers[0].Members[0].Feature.Geometry.Inner)
			if !strings.HasPrefix(poly, `<gml:Polygon srsName="EPSG:4326"><gml:exterior><gml:LinearRing><gml:posList srsDimension="2">174.77`) {
				t.Fatalf("GML %s", poly)
			}
			checkGML(t, doc.Layers[0].Members[0].Feature.Geometry.Inner)
			attrs := string(doc.Layers[1].Members[0].Feature.Attributes.Inner)
			if attrs != `<name>South 50 &lt;&amp;&gt;</name><rank>1</rank>` {
				t.Fatalf("attributes %s", attrs)
			}
		}

		// json-gmaps: polylines decode back to the geometry.
		resp, body := get(t, e, "/services/query/v1/vector", p, map[string]string{"Accept": "application/vnd.geopub.vectorQuery-gmaps+json"})
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.geopub.vectorQuery-gmaps+json") {
			t.Fatalf("gmaps %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var gm struct {
			VectorQuery struct {
				PolyNumLevels  int `json:"polyNumLevels"`
				PolyZoomFactor int `json:"polyZoomFactor"`
				Layers         map[string]struct {
					GeometryType string `json:"geometryType"`
					Features     []struct {
						Distance   float64     `json:"distance"`
						Properties any         `json:"properties"`
						Geometries [][2]string `json:"geometries"`
					} `json:"features"`
				} `json:"layers"`
			} `json:"vectorQuery"`
		}
		if err := json.Unmarshal(body, &gm); err != nil {
			t.Fatal(err)
		}
		if gm.VectorQuery.PolyNumLevels != 18 || gm.VectorQuery.PolyZoomFactor != 2 {
			t.Fatalf("levels %s", body)
		}
		reg := gm.VectorQuery.Layers[fmt.Sprint(f.regions)]
		if reg.GeometryType != "polygon" || len(reg.Features) != 2 || len(reg.Features[0].Geometries) != 1 {
			t.Fatalf("gmaps regions %s", body)
		}
		pair := reg.Features[0].Geometries[0]
		coords, ok := queryapi.DecodePolyline(pair[0])
		if !ok || len(coords) != 10 || len(pair[1]) != 5 {
			t.Fatalf("polyline %q levels %q", pair[0], pair[1])
		}
		a, b := offset(cLon, cLat, -100, -100)
		if math.Abs(coords[0]-a) > 0.6e-5 || math.Abs(coords[1]-b) > 0.6e-5 {
			t.Fatalf("decoded %v, want %f %f", coords[:2], a, b)
		}

		// Accept negotiation: unsupported types 406; */* is JSON.
		if resp, _ := get(t, e, "/services/query/v1/vector", p, map[string]string{"Accept": "image/png"}); resp.StatusCode != http.StatusNotAcceptable {
			t.Fatalf("image/png: %d", resp.StatusCode)
		}
		if resp, _ := get(t, e, "/services/query/v1/vector", p, map[string]string{"Accept": "text/html;q=0.9, */*;q=0.8"}); !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.geopub.vectorQuery+json") {
			t.Fatalf("*/*: %s", resp.Header.Get("Content-Type"))
		}
		// A version in the media type pins it.
		resp, _ = get(t, e, "/services/query/v1/vector", params(f.reader.Key, f.points), map[string]string{"Accept": "application/vnd.geopub.vectorQuery.1-gmaps+json"})
		if ct := resp.Header.Get("Content-Type"); ct != "application/vnd.geopub.vectorQuery-gmaps+json; version=1.0" {
			t.Fatalf("pinned: %s", ct)
		}
		resp, _ = get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "v", "1"), nil)
		if ct := resp.Header.Get("Content-Type"); ct != "application/vnd.geopub.vectorQuery+json; version=1.0" {
			t.Fatalf("v=1: %s", ct)
		}

		// gzip.
		resp, body = get(t, e, "/services/query/v1/vector.json", p, map[string]string{"Accept-Encoding": "gzip"})
		if resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("not gzipped: %v", resp.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || !json.Valid(plain) {
			t.Fatalf("gunzip: %v %s", err, plain)
		}
	})
}

// waitFresh lets remembered access decisions expire.
func waitFresh() { time.Sleep(2 * servertest.QueryFresh) }

// checkGML walks GML for structure: every element well nested, polygons
// with an exterior LinearRing whose posList has an even count of numbers,
// closed.
func checkGML(t *testing.T, inner []byte) {
	t.Helper()
	wrapped := `<w xmlns:gml="http://www.opengis.net/gml">` + string(inner) + `</w>`
	var w struct {
		Polygon *struct {
			SrsName  string `xml:"srsName,attr"`
			Exterior struct {
				Ring struct {
					PosList string `xml:"posList"`
				} `xml:"LinearRing"`
			} `xml:"exterior"`
		} `xml:"http://www.opengis.net/gml Polygon"`
	}
	if err := xml.Unmarshal([]byte(wrapped), &w); err != nil || w.Polygon == nil {
		t.Fatalf("GML: %v %s", err, inner)
	}
	nums := strings.Fields(w.Polygon.Exterior.Ring.PosList)
	if w.Polygon.SrsName != "EPSG:4326" || len(nums)%2 != 0 || len(nums) < 8 || nums[0] != nums[len(nums)-2] || nums[1] != nums[len(nums)-1] {
		t.Fatalf("GML ring %+v", w.Polygon)
	}
}
