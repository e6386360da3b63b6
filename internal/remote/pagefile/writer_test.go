package pagefile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"
)

// A page read through GDAL comes out as GeoJSON that keeps values, nulls,
// reals that look whole, awkward strings, Esri dates and missing
// geometries; a page GDAL cannot read is an error naming no path.
func TestWriterRoundTrip(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.json")
	os.WriteFile(page, []byte(`{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"n":1,"r":2.0,"s":"a \"q\"\nō","d":1709289000000},"geometry":{"type":"Point","coordinates":[174.123456789,-41.5]}},
{"type":"Feature","properties":{"n":null,"r":2.5,"s":null,"d":null},"geometry":null}]}`), 0o600)
	out := filepath.Join(dir, "out.geojson")
	w, err := Create(out, "things", "EPSG:2193")
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Append(context.Background(), Page{Path: page, Driver: "GeoJSON", Fields: []string{"s", "n"}, EpochMillis: map[string]bool{"d": true}})
	if err != nil || n != 2 {
		t.Fatalf("Append: %d, %v", n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.GeometryType() != "point" || w.Count != 2 {
		t.Errorf("geometry type %q, count %d", w.GeometryType(), w.Count)
	}
	var got struct {
		Name     string
		CRS      struct{ Properties struct{ Name string } }
		Features []struct {
			Properties map[string]any
			Geometry   *struct{ Coordinates []float64 }
		}
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	want0 := map[string]any{"n": 1.0, "r": 2.0, "s": "a \"q\"\nō", "d": "2024-03-01T10:30:00Z"}
	if got.Name != "things" || got.CRS.Properties.Name != "urn:ogc:def:crs:EPSG::2193" || len(got.Features) != 2 ||
		!reflect.DeepEqual(got.Features[0].Properties, want0) || got.Features[1].Geometry != nil ||
		got.Features[0].Geometry.Coordinates[0] != 174.123456789 {
		t.Errorf("wrote %s", b)
	}
	if !strings.Contains(string(b), `"r":2.0`) || !strings.Contains(string(b), `"n":null`) {
		t.Errorf("reals must keep a decimal point: %s", b)
	}

	// GDAL reads the file back in the CRS named, x first.
	ds, err := godal.Open(out, godal.VectorOnly())
	if err != nil {
		t.Fatal(err)
	}
	l := ds.Layers()[0]
	if code := l.SpatialRef().AuthorityCode(""); code != "2193" {
		t.Errorf("CRS read back: %q", code)
	}
	f := l.NextFeature()
	if b, err := f.Geometry().Bounds(); err != nil || b[0] != 174.123456789 || b[1] != -41.5 {
		t.Errorf("point read back: %v %v", b, err)
	}
	f.Close()
	ds.Close()

	os.WriteFile(page, []byte("not a page"), 0o600)
	if _, err := w.Append(context.Background(), Page{Path: page, Driver: "GeoJSON"}); err == nil || strings.Contains(err.Error(), dir) {
		t.Errorf("bad page: %v", err)
	}
}
