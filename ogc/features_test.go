package ogc_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"

	of "github.com/geopub/geopub/internal/ogcfeatures"
)

type link struct {
	Href, Rel, Type, Title string
}

func findLink(links []link, rel, typ string) (link, bool) {
	for _, l := range links {
		if l.Rel == rel && (typ == "" || l.Type == typ) {
			return l, true
		}
	}
	return link{}, false
}

type featureJSON struct {
	Type       string                     `json:"type"`
	ID         int64                      `json:"id"`
	Geometry   json.RawMessage            `json:"geometry"`
	Properties map[string]json.RawMessage `json:"properties"`
	Links      []link                     `json:"links"`
}

type collectionJSON struct {
	Type           string        `json:"type"`
	Features       []featureJSON `json:"features"`
	Links          []link        `json:"links"`
	TimeStamp      string        `json:"timeStamp"`
	NumberMatched  *int64        `json:"numberMatched"`
	NumberReturned *int          `json:"numberReturned"`
}

type exception struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

func layerID(id int) string { return fmt.Sprintf("layer-%d", id) }

// items fetches an items page and checks its shape.
func (f *fixture) items(t *testing.T, key, path string) collectionJSON {
	t.Helper()
	var fc collectionJSON
	f.get(t, key, path).json(t, http.StatusOK, "application/geo+json", &fc)
	if fc.Type != "FeatureCollection" || fc.NumberReturned == nil || *fc.NumberReturned != len(fc.Features) || fc.TimeStamp == "" {
		t.Fatalf("not a feature collection page: %+v", fc)
	}
	if _, ok := findLink(fc.Links, "self", "application/geo+json"); !ok {
		t.Fatalf("no self link: %+v", fc.Links)
	}
	return fc
}

// allPages follows next links from path and returns every feature id in
// the order read, and the number of pages.
func (f *fixture) allPages(t *testing.T, key, path string) ([]featureJSON, int) {
	t.Helper()
	var out []featureJSON
	pages := 0
	for path != "" {
		fc := f.items(t, key, path)
		pages++
		out = append(out, fc.Features...)
		path = ""
		if next, ok := findLink(fc.Links, "next", ""); ok {
			path = next.Href
		}
		if pages > 100 {
			t.Fatal("paging does not end")
		}
	}
	return out, pages
}

// TestOGCFeatures runs every test of the service on one fixture per
// backend (the access tests, which change permissions, last).
func TestOGCFeatures(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		t.Run("core", func(t *testing.T) { testCore(t, f) })
		t.Run("html", func(t *testing.T) { testHTML(t, f) })
		t.Run("crs", func(t *testing.T) { testCRS(t, f) })
		t.Run("filter", func(t *testing.T) { testFilter(t, f) })
		t.Run("filter functions", func(t *testing.T) { testFilterFunctions(t, f) })
		t.Run("gdal", func(t *testing.T) { testGDALReadsLayers(t, f) })
		t.Run("owslib", func(t *testing.T) { testOWSLib(t, f) })
		t.Run("access", func(t *testing.T) { testAccess(t, f) })
		t.Run("batches", func(t *testing.T) { testBatches(t, f) })
	})
}

// testCore: Part 1 core and GeoJSON, from the abstract test suite.
func testCore(t *testing.T, f *fixture) {
	key := f.reader.Key

	t.Run("/conf/core/root-success", func(t *testing.T) {
		var l struct {
			Title string
			Links []link
		}
		f.get(t, key, "/").json(t, http.StatusOK, "application/json", &l)
		for _, rel := range []string{"self", "service-desc", "conformance", "data"} {
			if _, ok := findLink(l.Links, rel, ""); !ok {
				t.Errorf("landing page lacks a %s link: %+v", rel, l.Links)
			}
		}
		// HEAD as GET.
		req, _ := http.NewRequest(http.MethodHead, f.e.HTTP.URL+"/services/ogc/features/collections?key="+key, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("HEAD: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		// The root without its slash redirects to it.
		r := f.get(t, key, "")
		if r.status != http.StatusOK {
			t.Errorf("root without slash: %d", r.status)
		}
	})

	t.Run("/conf/core/conformance-success", func(t *testing.T) {
		var c struct{ ConformsTo []string }
		f.get(t, key, "/conformance").json(t, http.StatusOK, "application/json", &c)
		for _, want := range []string{"/conf/core", "/conf/geojson", "/conf/html", "/conf/oas30", "ogcapi-features-2/1.0/conf/crs"} {
			if !slices.ContainsFunc(c.ConformsTo, func(s string) bool { return strings.HasSuffix(s, want) }) {
				t.Errorf("conformance lacks %s: %v", want, c.ConformsTo)
			}
		}
	})

	t.Run("/conf/oas30/oas-definition-1", func(t *testing.T) {
		var api struct {
			OpenAPI string         `json:"openapi"`
			Paths   map[string]any `json:"paths"`
		}
		f.get(t, key, "/api").json(t, http.StatusOK, "application/vnd.oai.openapi+json;version=3.0", &api)
		if !strings.HasPrefix(api.OpenAPI, "3.0") {
			t.Errorf("openapi %q", api.OpenAPI)
		}
		for _, p := range []string{"/", "/conformance", "/collections", "/collections/{collectionId}", "/collections/{collectionId}/items", "/collections/{collectionId}/items/{featureId}"} {
			if api.Paths[p] == nil {
				t.Errorf("the API definition lacks %s", p)
			}
		}
	})

	t.Run("/conf/core/fc-md-success", func(t *testing.T) {
		var cs struct {
			Links       []link
			Collections []struct {
				ID     string
				Title  string
				Links  []link
				Extent struct {
					Spatial struct {
						BBox [][]float64
						CRS  string
					}
				}
				CRS        []string
				StorageCRS string
			}
		}
		f.get(t, key, "/collections").json(t, http.StatusOK, "application/json", &cs)
		var ids []string
		for _, c := range cs.Collections {
			ids = append(ids, c.ID)
			if _, ok := findLink(c.Links, "items", "application/geo+json"); !ok {
				t.Errorf("%s lacks an items link", c.ID)
			}
			if c.ID == layerID(f.points) {
				b := c.Extent.Spatial.BBox
				if len(b) != 1 || b[0][0] != 174.70 || b[0][1] != -41.30 || math.Abs(b[0][2]-174.78) > 1e-9 || math.Abs(b[0][3]+41.22) > 1e-9 {
					t.Errorf("extent %v", b)
				}
				if c.Extent.Spatial.CRS != of.CRS84URI || c.StorageCRS != of.CRS84URI || !slices.Contains(c.CRS, "http://www.opengis.net/def/crs/EPSG/0/4326") {
					t.Errorf("crs %v %s %v", c.Extent.Spatial.CRS, c.StorageCRS, c.CRS)
				}
			}
		}
		want := []string{layerID(f.points), layerID(f.polygons), fmt.Sprintf("table-%d", f.table), layerID(f.events)}
		if !slices.Equal(ids, want) {
			t.Errorf("collections %v, want %v (the private layer hidden)", ids, want)
		}
		// The owner also sees the private layer.
		f.get(t, f.owner.Key, "/collections").json(t, http.StatusOK, "application/json", &cs)
		if len(cs.Collections) != 5 {
			t.Errorf("owner sees %d collections, want 5", len(cs.Collections))
		}
	})

	t.Run("/conf/core/sfc-md-success", func(t *testing.T) {
		var c struct {
			ID, Title, ItemType string
			Links               []link
		}
		f.get(t, key, "/collections/"+layerID(f.points)).json(t, http.StatusOK, "application/json", &c)
		if c.ID != layerID(f.points) || c.Title != "Wellington points" || c.ItemType != "feature" {
			t.Errorf("%+v", c)
		}
		var ex exception
		f.get(t, key, "/collections/layer-999999").json(t, http.StatusNotFound, "application/json", &ex)
		f.get(t, key, "/collections/nonsense").json(t, http.StatusNotFound, "application/json", &ex)
		if ex.Code == "" || ex.Description == "" {
			t.Errorf("exception %+v", ex)
		}
	})

	t.Run("/conf/core/fc-limit-response", func(t *testing.T) {
		fc := f.items(t, key, "/collections/"+layerID(f.points)+"/items")
		if len(fc.Features) != of.DefaultLimit || fc.NumberMatched == nil || *fc.NumberMatched != 26 {
			t.Errorf("default page: %d features, matched %v", len(fc.Features), fc.NumberMatched)
		}
		fc = f.items(t, key, "/collections/"+layerID(f.points)+"/items?limit=3")
		if len(fc.Features) != 3 {
			t.Errorf("limit=3 gave %d", len(fc.Features))
		}
		// Beyond the maximum is clamped, not refused.
		fc = f.items(t, key, "/collections/"+layerID(f.points)+"/items?limit=1000000")
		if len(fc.Features) != 26 {
			t.Errorf("limit=1000000 gave %d", len(fc.Features))
		}
		if _, ok := findLink(fc.Links, "next", ""); ok {
			t.Error("a complete page has a next link")
		}
		for _, bad := range []string{"0", "-1", "ten", "1.5"} {
			var ex exception
			f.get(t, key, "/collections/"+layerID(f.points)+"/items?limit="+bad).json(t, http.StatusBadRequest, "application/json", &ex)
			if ex.Code != "InvalidParameterValue" || !strings.Contains(ex.Description, "limit") {
				t.Errorf("limit=%s: %+v", bad, ex)
			}
		}
	})

	t.Run("/conf/core/fc-response", func(t *testing.T) {
		// Keyset paging reaches every feature exactly once, in fid order.
		got, pages := f.allPages(t, key, "/collections/"+layerID(f.points)+"/items?limit=10")
		if pages != 3 {
			t.Errorf("%d pages, want 3", pages)
		}
		var ids, want []int64
		for _, g := range got {
			ids = append(ids, g.ID)
		}
		for _, p := range f.pointFeatures {
			want = append(want, p.fid)
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("paged ids %v, want %v", ids, want)
		}
		for i, g := range got {
			fx := f.pointFeatures[i]
			var name string
			_ = json.Unmarshal(g.Properties["name"], &name)
			if name != fx.attrs["name"] {
				t.Errorf("feature %d name %q", g.ID, name)
			}
			if fx.g == nil {
				if string(g.Geometry) != "null" {
					t.Errorf("feature %d geometry %s, want null", g.ID, g.Geometry)
				}
				continue
			}
			var gg geom.T
			if err := geojson.Unmarshal(g.Geometry, &gg); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(gg.FlatCoords(), fx.g.FlatCoords()) {
				t.Errorf("feature %d at %v, want %v", g.ID, gg.FlatCoords(), fx.g.FlatCoords())
			}
		}
		if string(got[4].Properties["rank"]) != "null" {
			t.Errorf("absent rank %s", got[4].Properties["rank"])
		}
		var ex exception
		f.get(t, key, "/collections/"+layerID(f.points)+"/items?cursor=garbage").json(t, http.StatusBadRequest, "application/json", &ex)
	})

	t.Run("/conf/core/fc-bbox-response", func(t *testing.T) {
		// Points: the box holds the grid's lower-left 2 × 2 corner,
		// edges included.
		got, _ := f.allPages(t, key, "/collections/"+layerID(f.points)+"/items?bbox=174.69,-41.31,174.725,-41.275&limit=2")
		var ids []int64
		for _, g := range got {
			ids = append(ids, g.ID)
		}
		if !slices.Equal(ids, []int64{100, 103, 115, 118}) {
			t.Errorf("points in bbox %v", ids)
		}
		// Polygons: exact intersection, not box overlap.
		got, _ = f.allPages(t, key, "/collections/"+layerID(f.polygons)+"/items?bbox=174.80,-41.30,174.90,-41.20")
		var names []string
		for _, g := range got {
			var n string
			_ = json.Unmarshal(g.Properties["name"], &n)
			names = append(names, n)
		}
		if !slices.Equal(names, []string{"inside", "cover", "edge"}) {
			t.Errorf("polygons intersecting the bbox: %v", names)
		}
		// Six numbers: heights are ignored.
		fc := f.items(t, key, "/collections/"+layerID(f.polygons)+"/items?bbox=174.80,-41.30,-10,174.90,-41.20,10")
		if len(fc.Features) != 3 || fc.NumberMatched != nil {
			t.Errorf("6-number bbox: %d features, matched %v", len(fc.Features), fc.NumberMatched)
		}
		for _, bad := range []string{"1,2,3", "1,2,3,x", "174.9,-41.2,174.8,-41.3,1", "0,10,1,5", "0,0,200,1", "1,2,3,4,5,6,7"} {
			var ex exception
			f.get(t, key, "/collections/"+layerID(f.points)+"/items?bbox="+url.QueryEscape(bad)).json(t, http.StatusBadRequest, "application/json", &ex)
			if ex.Code != "InvalidParameterValue" || !strings.Contains(ex.Description, "bbox") {
				t.Errorf("bbox=%s: %+v", bad, ex)
			}
		}
	})

	t.Run("/conf/core/f-success", func(t *testing.T) {
		var ft featureJSON
		r := f.get(t, key, fmt.Sprintf("/collections/%s/items/%d", layerID(f.points), 103))
		r.json(t, http.StatusOK, "application/geo+json", &ft)
		if ft.Type != "Feature" || ft.ID != 103 || string(ft.Geometry) == "null" {
			t.Errorf("%+v", ft)
		}
		if _, ok := findLink(ft.Links, "collection", ""); !ok {
			t.Errorf("no collection link: %+v", ft.Links)
		}
		if r.header.Get("Content-Crs") != "<"+of.CRS84URI+">" {
			t.Errorf("Content-Crs %q", r.header.Get("Content-Crs"))
		}
		var ex exception
		f.get(t, key, fmt.Sprintf("/collections/%s/items/%d", layerID(f.points), 101)).json(t, http.StatusNotFound, "application/json", &ex)
		f.get(t, key, fmt.Sprintf("/collections/%s/items/abc", layerID(f.points))).json(t, http.StatusNotFound, "application/json", &ex)
	})

	t.Run("tables", func(t *testing.T) {
		fc := f.items(t, key, fmt.Sprintf("/collections/table-%d/items", f.table))
		if len(fc.Features) != 2 || string(fc.Features[0].Geometry) != "null" {
			t.Errorf("table items %+v", fc.Features)
		}
		var ex exception
		f.get(t, key, fmt.Sprintf("/collections/layer-%d", f.table)).json(t, http.StatusNotFound, "application/json", &ex)
	})

	t.Run("/conf/core/fc-time-response", func(t *testing.T) {
		var c struct {
			Extent struct {
				Temporal struct {
					Interval [][]string
					TRS      string
				}
			}
		}
		f.get(t, key, "/collections/"+layerID(f.events)).json(t, http.StatusOK, "application/json", &c)
		if iv := c.Extent.Temporal.Interval; len(iv) != 1 || iv[0][0] != "2020-06-15T12:00:00Z" || iv[0][1] != "2024-06-15T12:00:00Z" {
			t.Errorf("temporal extent %+v", c.Extent.Temporal)
		}
		for q, want := range map[string][]int64{
			"2022-06-15T12:00:00Z": {3},
			"2022-06-15":           {3},
			"2021-01-01T00:00:00Z/2023-01-01T00:00:00Z": {2, 3},
			"../2021-06-15T12:00:00Z":                   {1, 2},
			"2023-06-15T12:00:00Z/..":                   {4, 5},
			"2023-01-01/":                               {4, 5},
			"1999-01-01":                                nil,
		} {
			fc := f.items(t, key, "/collections/"+layerID(f.events)+"/items?datetime="+url.QueryEscape(q))
			var ids []int64
			for _, ft := range fc.Features {
				ids = append(ids, ft.ID)
			}
			if !slices.Equal(ids, want) {
				t.Errorf("datetime=%s: %v, want %v", q, ids, want)
			}
		}
		for _, bad := range []string{"yesterday", "../..", "2023-01-01/2022-01-01", "2020-13-01"} {
			var ex exception
			f.get(t, key, "/collections/"+layerID(f.events)+"/items?datetime="+url.QueryEscape(bad)).json(t, http.StatusBadRequest, "application/json", &ex)
		}
		// A collection without a time field ignores datetime.
		fc := f.items(t, key, "/collections/"+layerID(f.polygons)+"/items?datetime=2020-01-01")
		if len(fc.Features) != len(f.polygonFeatures) {
			t.Errorf("datetime on a collection without time: %d features", len(fc.Features))
		}
	})

	t.Run("property filter", func(t *testing.T) {
		fc := f.items(t, key, "/collections/"+layerID(f.points)+"/items?rank=2&limit=100")
		if len(fc.Features) != 8 {
			t.Errorf("rank=2: %d features, want 8", len(fc.Features))
		}
		fc = f.items(t, key, "/collections/"+layerID(f.points)+"/items?name="+url.QueryEscape("Point 3"))
		if len(fc.Features) != 1 || fc.Features[0].ID != 109 {
			t.Errorf("name=Point 3: %+v", fc.Features)
		}
	})
}
