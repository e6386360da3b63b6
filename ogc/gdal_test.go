package ogc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"
)

// A client that is not ours: GDAL's OAPIF driver reads each collection in
// full through the key query parameter, paging by the next links (limit
// smaller than the layer).
func testGDALReadsLayers(t *testing.T, f *fixture) {
	ogr2ogr := requireTool(t, "ogr2ogr", "gdal-bin")
	e := f.e
	for _, tc := range []struct {
		id    int
		want  []feature
		table bool
	}{{f.points, f.pointFeatures, false}, {f.polygons, f.polygonFeatures, false}, {f.table, f.tableFeatures, true}, {f.private, nil, false}} {
		out := filepath.Join(t.TempDir(), "out.geojson")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		src := "OAPIF:" + e.HTTP.URL + "/services/ogc/features?key=" + f.owner.Key
		name := layerID(tc.id)
		if tc.table {
			name = fmt.Sprintf("table-%d", tc.id)
		}
		cmd := exec.CommandContext(ctx, ogr2ogr, "-f", "GeoJSON", "-oo", "PAGE_SIZE=7", out, src, name)
		cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=30", "CPL_DEBUG=ON")
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("ogr2ogr %s: %v\n%s", layerID(tc.id), err, b)
		}
		if tc.want == nil {
			continue
		}
		// GDAL followed the next links: one request per page of 7.
		if pages := strings.Count(string(b), "cursor="); pages < (len(tc.want)-1)/7 {
			t.Errorf("%s: GDAL followed %d next links, want %d:\n%s", layerID(tc.id), pages, (len(tc.want)-1)/7, b)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		checkGeoJSON(t, layerID(tc.id), raw, tc.want)
	}
}

// checkGeoJSON compares a GeoJSON file a client wrote with the features
// of a layer: same count and order, same attributes, coordinates within
// 1e-7.
func checkGeoJSON(t *testing.T, name string, raw []byte, want []feature) {
	t.Helper()
	var fc struct {
		Features []struct {
			Properties map[string]any
			Geometry   json.RawMessage
		}
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	if len(fc.Features) != len(want) {
		t.Fatalf("%s: GDAL read %d features, want %d", name, len(fc.Features), len(want))
	}
	for i, got := range fc.Features {
		w := want[i]
		for k, v := range w.attrs {
			g := got.Properties[k]
			if n, ok := v.(int64); ok {
				if gf, ok := g.(float64); !ok || gf != float64(n) {
					t.Errorf("%s feature %d %s = %v, want %v", name, w.fid, k, g, v)
				}
				continue
			}
			if g != v {
				t.Errorf("%s feature %d %s = %v, want %v", name, w.fid, k, g, v)
			}
		}
		if w.g == nil {
			if len(got.Geometry) != 0 && string(got.Geometry) != "null" {
				t.Errorf("feature %d geometry %s, want none", w.fid, got.Geometry)
			}
			continue
		}
		var g geom.T
		if err := geojson.Unmarshal(got.Geometry, &g); err != nil {
			t.Fatalf("feature %d: %v", w.fid, err)
		}
		gc, wc := g.FlatCoords(), w.g.FlatCoords()
		if len(gc) != len(wc) {
			t.Fatalf("feature %d: %d coordinates, want %d", w.fid, len(gc), len(wc))
		}
		for j := range gc {
			if math.Abs(gc[j]-wc[j]) > 1e-7 {
				t.Errorf("feature %d coordinate %d: %v, want %v", w.fid, j, gc[j], wc[j])
			}
		}
	}
}
