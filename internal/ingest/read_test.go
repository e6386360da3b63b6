package ingest

import (
	"context"
	"encoding/binary"
	"errors"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// wkbPoint decodes a little-endian ISO WKB 2D point.
func wkbPoint(t *testing.T, b []byte) (x, y float64) {
	t.Helper()
	if len(b) != 21 || b[0] != 1 || binary.LittleEndian.Uint32(b[1:5]) != 1 {
		t.Fatalf("not a LE WKB point: % x", b)
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[5:13])), math.Float64frombits(binary.LittleEndian.Uint64(b[13:21]))
}

func scanOne(t *testing.T, dir, path, layer string) Datasource {
	t.Helper()
	res, err := Scan(context.Background(), dir)
	must(t, err)
	for _, d := range res.Datasources {
		if d.Path == path && (layer == "" || d.Layer == layer) {
			return d
		}
	}
	t.Fatalf("no datasource %s %s in %+v", path, layer, res)
	return Datasource{}
}

func TestReadShapefileAndReproject(t *testing.T) {
	dir := t.TempDir()
	ingesttest.Shapefile(t, dir, "towns")
	ds := scanOne(t, dir, "towns.shp", "")

	tr, err := NewTransformer(ds.CRS, EPSG4326)
	must(t, err)
	defer tr.Close()
	var got []Feature
	err = ReadFeatures(context.Background(), dir, ds, func(f Feature) error {
		got = append(got, f)
		return nil
	})
	must(t, err)
	if len(got) != len(nzPoints) {
		t.Fatalf("read %d features, want %d", len(got), len(nzPoints))
	}
	for i, f := range got {
		p := nzPoints[i]
		if f.FID != int64(i) {
			t.Errorf("FID = %d, want %d", f.FID, i)
		}
		if x, y := wkbPoint(t, f.Geometry); x != p.X || y != p.Y {
			t.Errorf("%s: geometry %v %v, want source CRS %v %v", p.Name, x, y, p.X, p.Y)
		}
		if f.Attributes["name"] != p.Name || f.Attributes["pop"] != int64(p.Pop) || f.Attributes["area"] != p.Area {
			t.Errorf("attributes = %#v", f.Attributes)
		}
		if d, ok := f.Attributes["founded"].(time.Time); !ok || !d.Equal(p.Date) {
			t.Errorf("founded = %#v, want %v", f.Attributes["founded"], p.Date)
		}
		ll, err := tr.WKB(f.Geometry)
		must(t, err)
		lon, lat := wkbPoint(t, ll)
		if lon < 166 || lon > 179 || lat < -48 || lat > -34 {
			t.Errorf("%s reprojected to %v %v: not lon/lat in New Zealand", p.Name, lon, lat)
		}
		if i == 0 && (math.Abs(lon-174.777) > 0.05 || math.Abs(lat-(-41.288)) > 0.05) {
			t.Errorf("Wellington at %v %v", lon, lat)
		}
	}
	// One-shot helper agrees with the transformer.
	one, err := Reproject(got[0].Geometry, "EPSG:2193", "EPSG:4326")
	must(t, err)
	ll, _ := tr.WKB(got[0].Geometry)
	if string(one) != string(ll) {
		t.Error("Reproject and Transformer.WKB differ")
	}
	if _, err := NewTransformer("https://example.com/crs", EPSG4326); err == nil {
		t.Error("URL accepted as CRS")
	}
}

func TestReadGeoPackageLayerGeoJSONAndCSV(t *testing.T) {
	dir := t.TempDir()
	ingesttest.GeoPackage(t, dir)
	must(t, os.WriteFile(filepath.Join(dir, "lakes.geojson"), []byte(`{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"lake":"Taupo","protected":true,"surveyed":"2020-03-04","note":null},"geometry":{"type":"Point","coordinates":[175.9,-38.8]}},
{"type":"Feature","properties":{"lake":"Nowhere","protected":false,"surveyed":"2021-05-06","note":"x"},"geometry":null}]}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "titles.csv"), []byte("title_no,area_ha\nWN1/1,1.5\nWN1/2,\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "stations.csv"), []byte("code,lon,lat\nWLG,174.768,-41.286\n"), 0o644))

	parcels := scanOne(t, dir, "transport.gpkg", "parcels")
	var n int
	must(t, ReadFeatures(context.Background(), dir, parcels, func(f Feature) error {
		n++
		if f.Attributes["parcel_id"] != int64(17) || f.Attributes["owner"] != "Crown" {
			t.Errorf("parcel attributes = %#v", f.Attributes)
		}
		if len(f.Geometry) < 9 || binary.LittleEndian.Uint32(f.Geometry[1:5]) != 3 {
			t.Errorf("parcel geometry is not an ISO WKB polygon: % x", f.Geometry)
		}
		return nil
	}))
	if n != 1 {
		t.Errorf("parcels read %d features", n)
	}

	lakes := scanOne(t, dir, "lakes.geojson", "")
	var feats []Feature
	must(t, ReadFeatures(context.Background(), dir, lakes, func(f Feature) error { feats = append(feats, f); return nil }))
	if len(feats) != 2 || feats[0].Attributes["protected"] != true || feats[1].Attributes["protected"] != false ||
		feats[0].Attributes["note"] != nil || feats[1].Geometry != nil {
		t.Errorf("lakes = %#v", feats)
	}
	if lakes.EmptyGeometryCount != 1 {
		t.Errorf("empty geometry count = %d", lakes.EmptyGeometryCount)
	}

	titles := scanOne(t, dir, "titles.csv", "")
	feats = nil
	must(t, ReadFeatures(context.Background(), dir, titles, func(f Feature) error { feats = append(feats, f); return nil }))
	if len(feats) != 2 || feats[0].Geometry != nil || feats[0].Attributes["area_ha"] != 1.5 || feats[1].Attributes["area_ha"] != nil {
		t.Errorf("titles = %#v", feats)
	}

	st := scanOne(t, dir, "stations.csv", "")
	must(t, ReadFeatures(context.Background(), dir, st, func(f Feature) error {
		if x, y := wkbPoint(t, f.Geometry); x != 174.768 || y != -41.286 {
			t.Errorf("station at %v %v", x, y)
		}
		if _, ok := f.Attributes["lon"]; ok {
			t.Errorf("lon kept as attribute: %#v", f.Attributes)
		}
		return nil
	}))
}

func TestReadStopsAndFails(t *testing.T) {
	dir := t.TempDir()
	ingesttest.Shapefile(t, dir, "towns")
	ds := scanOne(t, dir, "towns.shp", "")

	stop := errors.New("stop")
	calls := 0
	err := ReadFeatures(context.Background(), dir, ds, func(Feature) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("callback error: err=%v calls=%d", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	err = ReadFeatures(ctx, dir, ds, func(Feature) error { calls++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancel: err=%v calls=%d", err, calls)
	}

	// Truncate the .shp after the scan: the read error names the feature.
	shp := filepath.Join(dir, "towns.shp")
	b, _ := os.ReadFile(shp)
	must(t, os.WriteFile(shp, b[:len(b)-30], 0o644))
	n := 0
	err = ReadFeatures(context.Background(), dir, ds, func(Feature) error { n++; return nil })
	if err == nil || n != 1 {
		t.Fatalf("truncated read: err=%v after %d features", err, n)
	}
	t.Log(err)

	if err := ReadFeatures(context.Background(), dir, Datasource{Path: "x.pdf", DataType: TypeDocument}, nil); err == nil {
		t.Error("document read succeeded")
	}
}
