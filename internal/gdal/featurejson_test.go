package gdal_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// openVector writes body to a file named name and opens it with godal.
func openVector(t *testing.T, name, body string) *godal.Dataset {
	t.Helper()
	return openVectorAt(t, filepath.Join(t.TempDir(), name), body)
}

// openVectorAt writes body to path p and opens it as a vector dataset.
func openVectorAt(t *testing.T, p, body string) *godal.Dataset {
	t.Helper()
	gdal.Init()
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := godal.Open(p, godal.VectorOnly())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	return ds
}

func TestFeatureGeoJSON(t *testing.T) {
	ds := openVector(t, "f.geojson", `{"type":"FeatureCollection","features":[
		{"type":"Feature","properties":{"a":1,"b":null},"geometry":{"type":"Point","coordinates":[174.123456789012345,-41.5]}},
		{"type":"Feature","properties":{"a":2},"geometry":null}]}`)
	l := ds.Layers()[0]
	f := l.NextFeature()
	defer f.Close()
	js, typ, ok, err := gdal.FeatureGeoJSON(f)
	if err != nil || !ok || typ != 1 || js != `{ "type": "Point", "coordinates": [ 174.123456789012, -41.5 ] }` {
		t.Errorf("FeatureGeoJSON = %q, %d, %v, %v", js, typ, ok, err)
	}
	if !gdal.FeatureHasValue(f, "a") || gdal.FeatureHasValue(f, "b") || gdal.FeatureHasValue(f, "nope") {
		t.Error("FeatureHasValue: a set, b null, nope absent")
	}
	g := l.NextFeature()
	defer g.Close()
	if _, _, ok, err := gdal.FeatureGeoJSON(g); ok || err != nil {
		t.Errorf("FeatureGeoJSON of no geometry = %v, %v", ok, err)
	}
}
