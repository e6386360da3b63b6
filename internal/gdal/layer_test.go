package gdal_test

import (
	"testing"

	"github.com/geopub/geopub/internal/gdal"
)

// A layer's schema and its features' geometries and values, read through
// godal's handles.
func TestLayerAndFeatures(t *testing.T) {
	ds := openVector(t, "l.geojson", `{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:OGC:1.3:CRS84"}},"features":[
		{"type":"Feature","id":7,"properties":{"n":5,"r":1.5,"s":"x","b":true,"d":"2024-05-06T07:08:09.5+01:00"},
		 "geometry":{"type":"LineString","coordinates":[[1,2,3],[4,6,5]]}},
		{"type":"Feature","id":8,"properties":{"n":null},"geometry":null}]}`)
	l := ds.Layers()[0]
	want := []gdal.FieldDefn{
		{Name: "n", Type: gdal.FieldInteger}, {Name: "r", Type: gdal.FieldReal}, {Name: "s", Type: gdal.FieldString},
		{Name: "b", Type: gdal.FieldInteger, Boolean: true}, {Name: "d", Type: gdal.FieldDateTime},
	}
	got := gdal.LayerFields(l)
	if len(got) != len(want) {
		t.Fatalf("LayerFields = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	if flat, z := gdal.LayerGeomType(l); flat != 2 || !z || !gdal.LayerHasGeometry(l) {
		t.Errorf("LayerGeomType = %d, %v", flat, z)
	}
	if wkt := gdal.LayerSRSWKT(l); wkt == "" {
		t.Error("LayerSRSWKT: none")
	}
	f, err := gdal.NextFeature(l)
	if err != nil || f == nil {
		t.Fatal(f, err)
	}
	g := f.Geometry()
	if !g.Present || g.Empty || g.Flat != 2 || !g.HasZ || g.Env != [4]float64{1, 2, 4, 6} {
		t.Errorf("Geometry = %+v", g)
	}
	if b, err := f.WKB(); err != nil || len(b) != 1+4+4+2*24 || b[0] != 1 {
		t.Errorf("WKB = %v, %v", b, err)
	}
	y, mo, d, h, mi, s, tz, ok := f.DateTime(4)
	if f.FID() != 7 || f.Int64(0) != 5 || f.Float(1) != 1.5 || f.Text(2) != "x" || f.Int(3) != 1 ||
		!ok || y != 2024 || mo != 5 || d != 6 || h != 7 || mi != 8 || s != 9.5 || tz != 104 {
		t.Errorf("values: fid %d, %d %v %q %d, %d-%d-%d %d:%d:%v tz %d", f.FID(), f.Int64(0), f.Float(1), f.Text(2), f.Int(3), y, mo, d, h, mi, s, tz)
	}
	f.Close()
	f, err = gdal.NextFeature(l)
	if err != nil || f == nil {
		t.Fatal(f, err)
	}
	if g := f.Geometry(); g.Present || f.IsSet(0) {
		t.Errorf("second feature: geometry %+v, n set %v", g, f.IsSet(0))
	}
	if b, err := f.WKB(); b != nil || err != nil {
		t.Errorf("WKB of none = %v, %v", b, err)
	}
	f.Close()
	if f, err := gdal.NextFeature(l); f != nil || err != nil {
		t.Errorf("past the end: %v, %v", f, err)
	}
	if gdal.LayerFIDColumn(l) != "" {
		t.Errorf("LayerFIDColumn = %q", gdal.LayerFIDColumn(l))
	}
}
