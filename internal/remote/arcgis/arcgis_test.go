package arcgis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/arcgis"
)

const (
	townCount  = 25
	roadCount  = 17
	visitCount = 12
)

type testFeature struct {
	props  map[string]any
	coords []float64 // flattened; nil for table rows
}

// Coordinates have six decimals: Koop rounds to seven.
func townFeatures() map[int]testFeature {
	out := map[int]testFeature{}
	for i := 0; i < townCount; i++ {
		out[i+1] = testFeature{props: map[string]any{"id": i + 1, "name": fmt.Sprintf("Town %d ō", i), "pop": float64(i*1000) + 0.25},
			coords: []float64{170 + float64(i)*0.123457, -40 - float64(i)*0.076543}}
	}
	return out
}

func roadFeatures() map[int]testFeature {
	out := map[int]testFeature{}
	for i := 0; i < roadCount; i++ {
		x, y := 174.7+float64(i)*0.001234, -41.3+float64(i)*0.000987
		out[i+1] = testFeature{props: map[string]any{"id": i + 1, "ref": fmt.Sprintf("SH%d", i)},
			coords: []float64{x, y, x + 0.01, y + 0.002, x + 0.02, y - 0.001}}
	}
	return out
}

func visitFeatures() map[int]testFeature {
	out := map[int]testFeature{}
	for i := 0; i < visitCount; i++ {
		out[i+1] = testFeature{props: map[string]any{"id": i + 1, "who": fmt.Sprintf("visitor %d", i), "hours": float64(i) + 0.5,
			"at": fmt.Sprintf("2024-03-%02dT10:30:00Z", i+1)}}
	}
	return out
}

func collection(feats map[int]testFeature, geom func([]float64) any, meta map[string]any) map[string]any {
	ids := make([]int, 0, len(feats))
	for id := range feats {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var list []map[string]any
	for _, id := range ids {
		f := feats[id]
		var g any
		if f.coords != nil {
			g = geom(f.coords)
		}
		list = append(list, map[string]any{"type": "Feature", "properties": f.props, "geometry": g})
	}
	return map[string]any{"type": "FeatureCollection", "metadata": meta, "features": list}
}

func testServices() (map[string]any, []service) {
	files := map[string]any{
		"towns": collection(townFeatures(), func(c []float64) any { return map[string]any{"type": "Point", "coordinates": c} },
			map[string]any{"name": "Towns", "maxRecordCount": 10, "idField": "id"}),
		"roads": collection(roadFeatures(), func(c []float64) any {
			return map[string]any{"type": "LineString", "coordinates": [][]float64{{c[0], c[1]}, {c[2], c[3]}, {c[4], c[5]}}}
		}, map[string]any{"name": "Roads", "maxRecordCount": 7, "idField": "id"}),
		"visits": collection(visitFeatures(), nil, map[string]any{"name": "Visits", "maxRecordCount": 5, "idField": "id"}),
	}
	return files, []service{{"", "towns", "FeatureServer", false}, {"", "visits", "FeatureServer", false}, {"Transport", "roads", "MapServer", true}}
}

// Discover and Fetch against Koop: layers and tables of root and folder
// services with their counts, fields and CRS; every feature copied over
// several pages, by resultOffset and by object-id batches.
func TestArcGISKoop(t *testing.T) {
	files, services := testServices()
	koop := startKoop(t, files)
	front, log := frontServerLog(t, koop, services, false)
	gdal.Init()
	ctx := context.Background()
	c := remote.Conn{URL: front.URL + "/arcgis/rest/services/", SSLVerify: true, Fetch: loopback()}
	var notes []string
	ds, err := arcgis.Kind{}.Discover(ctx, c, func(s string) { notes = append(notes, s) })
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	byPath := map[string]ingest.Datasource{}
	for _, d := range ds {
		byPath[d.Path] = d
	}
	if len(ds) != 3 {
		t.Fatalf("Discover found %d datasources: %+v (notes %q)", len(ds), ds, notes)
	}
	tw := byPath["towns/FeatureServer/0"]
	if tw.FeatureCount != townCount || tw.CRS != "EPSG:4326" || tw.GeometryType != "point" || tw.DataType != ingest.TypeVector || tw.Title == "" {
		t.Errorf("towns = %+v", tw)
	}
	if tw.Extent == nil || math.Abs(tw.Extent[0]-170) > 1e-5 {
		t.Errorf("towns extent = %v", tw.Extent)
	}
	wantFields := []ingest.Field{{Name: "SHAPE", Type: "geometry"}, {Name: "id", Type: "integer"}, {Name: "name", Type: "string"}, {Name: "pop", Type: "double"}}
	if !reflect.DeepEqual(tw.Fields, wantFields) {
		t.Errorf("towns fields = %+v", tw.Fields)
	}
	rd := byPath["Transport/roads/MapServer/0"]
	if rd.FeatureCount != roadCount || rd.GeometryType != "multilinestring" {
		t.Errorf("roads = %+v", rd)
	}
	vi := byPath["visits/FeatureServer/0"]
	if vi.FeatureCount != visitCount || vi.DataType != ingest.TypeTable || vi.CRS != "" {
		t.Errorf("visits = %+v", vi)
	}

	for _, tc := range []struct {
		path  string
		want  map[int]testFeature
		kinds []string
	}{
		{tw.Path, townFeatures(), []string{"Point"}},
		{rd.Path, roadFeatures(), []string{"LineString", "MultiLineString"}},
		{vi.Path, visitFeatures(), nil},
	} {
		dir := t.TempDir()
		var last float64
		file, layer, err := arcgis.Kind{}.Fetch(ctx, c, tc.path, dir, func(f float64) {
			if f < last {
				t.Errorf("%s: progress went back from %v to %v", tc.path, last, f)
			}
			last = f
		})
		if err != nil {
			t.Fatalf("Fetch %s: %v", tc.path, err)
		}
		got := readBack(t, filepath.Join(dir, file), layer)
		if len(got) != len(tc.want) || last != 1 {
			t.Fatalf("%s: fetched %d features, want %d (progress %v)", tc.path, len(got), len(tc.want), last)
		}
		for id, w := range tc.want {
			g := got[id]
			for k, v := range w.props {
				if k == "id" {
					continue
				}
				if g.fields[k] != v {
					t.Errorf("%s %d: %s = %v, want %v", tc.path, id, k, g.fields[k], v)
				}
			}
			if w.coords == nil {
				if g.kind != "" {
					t.Errorf("%s %d: geometry %s in a table", tc.path, id, g.kind)
				}
				continue
			}
			if !contains(tc.kinds, g.kind) {
				t.Errorf("%s %d: geometry %s", tc.path, id, g.kind)
			}
			near(t, id, g.coords, w.coords)
		}
	}

	if n := log.count("towns/FeatureServer", "resultOffset="); n < 3 {
		t.Errorf("towns were read in %d offset pages, want 3 or more", n)
	}
	if n := log.count("roads/MapServer", "objectIds="); n < 3 {
		t.Errorf("roads were read in %d object-id batches, want 3 or more", n)
	}
	if n := log.count("visits/FeatureServer", "resultOffset="); n < 3 {
		t.Errorf("visits were read in %d offset pages, want 3 or more", n)
	}

	// options.folders limits the walk.
	c.Folders = []string{"Transport"}
	ds, err = arcgis.Kind{}.Discover(ctx, c, func(string) {})
	if err != nil || len(ds) != 1 || ds[0].Path != rd.Path {
		t.Errorf("Discover of folder Transport: %v, %+v", err, ds)
	}
}

type readFeature struct {
	fields map[string]any
	kind   string
	coords []float64
}

// readBack opens the fetched file with GDAL, as an import does, and
// returns its features by id.
func readBack(t *testing.T, path, layer string) map[int]readFeature {
	t.Helper()
	ds, err := godal.Open(path, godal.VectorOnly())
	if err != nil {
		t.Fatalf("GDAL cannot open the fetched file: %v", err)
	}
	defer ds.Close()
	l := ds.LayerByName(layer)
	if l == nil {
		t.Fatalf("no layer %q in the fetched file", layer)
	}
	out := map[int]readFeature{}
	for f := l.NextFeature(); f != nil; f = l.NextFeature() {
		rf := readFeature{fields: map[string]any{}}
		for name, fl := range f.Fields() {
			switch fl.Type() {
			case godal.FTInt, godal.FTInt64:
				rf.fields[name] = int(fl.Int())
			case godal.FTReal:
				rf.fields[name] = fl.Float()
			case godal.FTDateTime:
				rf.fields[name] = fl.DateTime().UTC().Format(time.RFC3339)
			default:
				rf.fields[name] = fl.String()
			}
		}
		// godal tells a missing geometry only by failing to export it.
		if js, err := f.Geometry().GeoJSON(godal.SignificantDigits(15)); err == nil {
			var gj struct {
				Type        string
				Coordinates any
			}
			if err := json.Unmarshal([]byte(js), &gj); err != nil {
				t.Fatal(err)
			}
			rf.kind, rf.coords = gj.Type, flatten(gj.Coordinates, nil)
		}
		id, ok := rf.fields["id"].(int)
		if !ok {
			id, _ = rf.fields["OBJECTID"].(int)
		}
		if _, dup := out[id]; dup {
			t.Errorf("feature %d twice", id)
		}
		out[id] = rf
		f.Close()
	}
	return out
}

func flatten(v any, out []float64) []float64 {
	switch x := v.(type) {
	case float64:
		return append(out, x)
	case []any:
		for _, e := range x {
			out = append(out, flatten(e, nil)...)
		}
	}
	return out
}

func near(t *testing.T, id int, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("feature %d: %d coordinates, want %d (%v)", id, len(got), len(want), got)
		return
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-7 {
			t.Errorf("feature %d: coordinates %v, want %v", id, got, want)
			return
		}
	}
}
