package gdal_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// A GeoPackage written feature by feature reads back with its CRS,
// geometry type, fields and values.
func TestGPKGWriter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.gpkg")
	w, err := gdal.CreateGPKG(p, "pts", "point", 2, "EPSG:2193",
		[]string{"i", "r", "b", "d", "s"}, []string{"integer", "double", "boolean", "datetime", "text"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	pt := []byte{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 8, 64} // POINT(2 3)
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := w.Write(pt, []any{int64(42), 1.5, true, when, "x"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(nil, []any{nil, nil, nil, nil, nil}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := godal.Open(p, godal.VectorOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	l := ds.LayerByName("pts")
	if flat, _ := gdal.LayerGeomType(*l); flat != 1 || !strings.Contains(gdal.LayerSRSWKT(*l), "2193") {
		t.Errorf("layer: type %d, CRS %q", flat, gdal.LayerSRSWKT(*l))
	}
	if fs := gdal.LayerFields(*l); len(fs) != 5 || fs[0].Type != gdal.FieldInteger64 || !fs[2].Boolean || fs[3].Type != gdal.FieldDateTime {
		t.Errorf("fields %+v", fs)
	}
	f, err := gdal.NextFeature(*l)
	if err != nil || f == nil {
		t.Fatal(f, err)
	}
	defer f.Close()
	y, _, _, h, _, _, _, ok := f.DateTime(3)
	if g := f.Geometry(); g.Env != [4]float64{2, 3, 2, 3} || f.Int64(0) != 42 || f.Float(1) != 1.5 || f.Int(2) != 1 || !ok || y != 2024 || h != 7 || f.Text(4) != "x" {
		t.Errorf("feature: %+v", g)
	}
	if _, err := gdal.CreateGPKG(filepath.Join(t.TempDir(), "x.gpkg"), "x", "point", 2, "EPSG:999999", nil, nil); err == nil || err.Error() != "the CRS EPSG:999999 is not one GDAL knows" {
		t.Errorf("an unknown CRS: %v", err)
	}
}
