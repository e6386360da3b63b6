package ogc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
)

// GDAL's ESRIJSON driver reads a FeatureServer layer of more features
// than a page: it follows exceededTransferLimit with resultOffset, and
// gets every feature once, attributes and geometry equal to the source.
func TestArcGISGDALReadsFeatureServerPages(t *testing.T) {
	ogr2ogr := requireTool(t, "ogr2ogr", "gdal-bin")
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		want := randomPoints(7, 2345)
		id := publish(t, e, owner.User, layer.TypeLayer, "Many points", "point", attrFields, want)
		for _, tc := range []struct{ name, query string }{
			{"pages of 500", "where=1%3D1&outFields=*&f=json&resultRecordCount=500"},
			// No resultRecordCount: pages of maxRecordCount (2000).
			{"pages of 2000", "where=1%3D1&outFields=*&f=json"},
		} {
			out := filepath.Join(t.TempDir(), "out.geojson")
			src := fmt.Sprintf("ESRIJSON:%s/services/arcgis/rest/services/layer_%d/FeatureServer/0/query?%s", e.HTTP.URL, id, tc.query)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			cmd := exec.CommandContext(ctx, ogr2ogr, "-f", "GeoJSON", "-oo", "FEATURE_SERVER_PAGING=YES", out, src)
			cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=30", "CPL_DEBUG=ON")
			b, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s: ogr2ogr: %v\n%s", tc.name, err, b)
			}
			if n := strings.Count(string(b), "resultOffset="); n < 1 {
				t.Errorf("%s: GDAL did not page:\n%.2000s", tc.name, b)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			checkGeoJSON(t, tc.name, raw, want)
		}
	})
}

// esriClients installs scripts/esri-clients (arcgis-rest-js, Esri
// Leaflet) and returns its folder; without node it fails under
// GEOPUB_REQUIRE_TOOLS and skips otherwise.
func esriClients(t *testing.T) string {
	t.Helper()
	requireTool(t, "node", "nodejs")
	out, err := exec.Command("bash", "../scripts/ensure-npm.sh", "esri-clients").Output()
	if err != nil {
		t.Fatalf("scripts/ensure-npm.sh esri-clients: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// arcgis-rest-js's queryFeatures, with a where clause, an envelope and
// paging, gets the features OGC API - Features gives for the same filter
// (CQL2 and bbox): the same ids in the same order, the same attributes.
func TestArcGISRestJSQueryFeatures(t *testing.T) {
	dir := esriClients(t)
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		id := publish(t, e, owner.User, layer.TypeLayer, "Many points", "point", attrFields, randomPoints(11, 1500))
		bbox := [4]float64{west + 0.02, south + 0.01, west + 0.08, south + 0.06}
		// OGC API - Features: every page of the same filter.
		q := url.Values{"filter": {"rank IN (1,3) AND name LIKE 'point 1%'"}, "filter-lang": {"cql2-text"},
			"bbox": {fmt.Sprintf("%v,%v,%v,%v", bbox[0], bbox[1], bbox[2], bbox[3])}, "limit": {"100"}}
		next := fmt.Sprintf("%s/services/ogc/features/collections/layer-%d/items?%s", e.HTTP.URL, id, q.Encode())
		var want []ogcItem
		for next != "" {
			resp, b := fetch(t, e, strings.TrimPrefix(next, e.HTTP.URL), nil)
			if resp.StatusCode != 200 {
				t.Fatalf("OGC items: %d %s", resp.StatusCode, b)
			}
			var page struct {
				Features []ogcItem
				Links    []struct{ Rel, Href string }
			}
			if err := json.Unmarshal(b, &page); err != nil {
				t.Fatal(err)
			}
			want = append(want, page.Features...)
			next = ""
			for _, l := range page.Links {
				if l.Rel == "next" {
					next = l.Href
				}
			}
		}
		if len(want) < 30 {
			t.Fatalf("the filter keeps %d features: too few to page", len(want))
		}
		for _, method := range []string{"GET", "POST"} {
			in, _ := json.Marshal(map[string]any{
				"url":        fmt.Sprintf("%s/services/arcgis/rest/services/layer_%d/FeatureServer/0", e.HTTP.URL, id),
				"where":      "rank IN (1,3) AND name LIKE 'point 1%'",
				"geometry":   map[string]any{"xmin": bbox[0], "ymin": bbox[1], "xmax": bbox[2], "ymax": bbox[3], "spatialReference": map[string]int{"wkid": 4326}},
				"pageSize":   (len(want) + 2) / 3,
				"httpMethod": method,
			})
			cmd := exec.Command("node", "../scripts/esri-clients/query.mjs", string(in))
			cmd.Env = append(os.Environ(), "ESRI_CLIENTS="+dir)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			if err != nil {
				t.Fatalf("query.mjs (%s): %v\n%s", method, err, stderr.String())
			}
			var got struct {
				Pages    int
				Features []struct {
					ID         int64
					Attributes map[string]any
					Geometry   struct{ X, Y float64 }
				}
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			if got.Pages < 3 {
				t.Errorf("%s: %d pages, want 3 or more", method, got.Pages)
			}
			if len(got.Features) != len(want) {
				t.Fatalf("%s: queryFeatures read %d features, OGC API %d", method, len(got.Features), len(want))
			}
			for i, g := range got.Features {
				w := want[i]
				if g.ID != w.ID || g.Attributes["name"] != w.Properties["name"] || g.Attributes["rank"] != w.Properties["rank"] ||
					math.Abs(g.Geometry.X-w.Geometry.Coordinates[0]) > 1e-9 || math.Abs(g.Geometry.Y-w.Geometry.Coordinates[1]) > 1e-9 {
					t.Fatalf("%s: feature %d: %+v, OGC API %+v", method, i, g, w)
				}
			}
		}
	})
}

type ogcItem struct {
	ID         int64
	Properties map[string]any
	Geometry   struct{ Coordinates []float64 }
}

// f=pbf decoded by arcgis-pbf-parser (not ours) gives what f=geojson
// gives: ids, attributes, points, polygons with holes, paging.
func TestArcGISPBFDecodes(t *testing.T) {
	dir := esriClients(t)
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		queries := []string{
			fmt.Sprintf("/services/layer_%d/FeatureServer/0/query?where=1%%3D1&outFields=*&resultRecordCount=10", f.points),
			fmt.Sprintf("/services/layer_%d/FeatureServer/0/query?where=1%%3D1&outFields=*&resultOffset=20&resultRecordCount=10", f.points),
			fmt.Sprintf("/services/layer_%d/FeatureServer/0/query?where=1%%3D1&outFields=*", f.polygons),
			fmt.Sprintf("/services/layer_%d/FeatureServer/0/query?where=1%%3D1&outFields=*&outSR=3857", f.polygons),
			fmt.Sprintf("/services/layer_%d/FeatureServer/0/query?where=1%%3D1&outFields=*&quantizationParameters=%s", f.points,
				url.QueryEscape(`{"mode":"view","originPosition":"upperLeft","tolerance":0.0001,"extent":{"xmin":174,"ymin":-42,"xmax":175,"ymax":-41}}`)),
		}
		var files []string
		for i, q := range queries {
			st, b := arcgis(t, e, "", q+"&f=pbf", nil)
			if st != 200 {
				t.Fatalf("%s: %d %s", q, st, b)
			}
			p := filepath.Join(t.TempDir(), fmt.Sprintf("q%d.pbf", i))
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
		cmd := exec.Command("node", append([]string{"../scripts/esri-clients/decodepbf.mjs"}, files...)...)
		cmd.Env = append(os.Environ(), "ESRI_CLIENTS="+dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("decodepbf.mjs: %v\n%s", err, stderr.String())
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i, q := range queries {
			var got struct {
				FeatureCollection struct {
					Features []struct {
						ID         int64
						Properties map[string]any
						Geometry   *struct {
							Type        string
							Coordinates json.RawMessage
						}
					}
				}
				ExceededTransferLimit bool
			}
			if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
				t.Fatal(err)
			}
			var want struct {
				Features []struct {
					ID         int64
					Properties map[string]any
					Geometry   *struct {
						Type        string
						Coordinates json.RawMessage
					}
				}
				Properties struct{ ExceededTransferLimit bool }
			}
			arcgisJSON(t, e, "", q+"&f=geojson", 200, &want)
			if len(got.FeatureCollection.Features) != len(want.Features) || got.ExceededTransferLimit != want.Properties.ExceededTransferLimit {
				t.Fatalf("%s: pbf %d features (exceeded %v), geojson %d (%v)", q, len(got.FeatureCollection.Features), got.ExceededTransferLimit, len(want.Features), want.Properties.ExceededTransferLimit)
			}
			tol := 1e-7
			if strings.Contains(q, "3857") {
				tol = 1e-2
			}
			if strings.Contains(q, "tolerance") {
				tol = 1e-4
			}
			for j, g := range got.FeatureCollection.Features {
				w := want.Features[j]
				if g.ID != w.ID || fmt.Sprint(g.Properties) != fmt.Sprint(w.Properties) {
					t.Errorf("%s feature %d: pbf %d %v, geojson %d %v", q, j, g.ID, g.Properties, w.ID, w.Properties)
				}
				if (g.Geometry == nil) != (w.Geometry == nil) {
					t.Errorf("%s feature %d: geometry %v vs %v", q, j, g.Geometry, w.Geometry)
					continue
				}
				if g.Geometry == nil {
					continue
				}
				gc, wc := flatNumbers(g.Geometry.Coordinates), flatNumbers(w.Geometry.Coordinates)
				if strings.HasSuffix(g.Geometry.Type, "Polygon") && len(gc) == len(wc) {
					// Esri rings wind the other way from GeoJSON's.
					gc = sortedPairs(gc)
					wc = sortedPairs(wc)
				}
				if len(gc) != len(wc) {
					t.Errorf("%s feature %d: %d numbers, want %d", q, j, len(gc), len(wc))
					continue
				}
				for k := range gc {
					if math.Abs(gc[k]-wc[k]) > tol {
						t.Errorf("%s feature %d: coordinate %d %v, want %v", q, j, k, gc[k], wc[k])
						break
					}
				}
			}
		}
	})
}

// flatNumbers are the numbers of nested JSON arrays in order.
func flatNumbers(raw json.RawMessage) []float64 {
	var v any
	_ = json.Unmarshal(raw, &v)
	var out []float64
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case float64:
			out = append(out, x)
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return out
}

// sortedPairs sorts coordinate pairs, so that rings wound either way
// compare equal.
func sortedPairs(c []float64) []float64 {
	pairs := make([][2]float64, len(c)/2)
	for i := range pairs {
		pairs[i] = [2]float64{c[2*i], c[2*i+1]}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	out := make([]float64, 0, len(c))
	for _, p := range pairs {
		out = append(out, p[0], p[1])
	}
	return out
}
