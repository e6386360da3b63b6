package ingest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ogr2ogrGPKG writes src (GeoJSON) as the GeoPackage dir/name with
// ogr2ogr, keeping the source FIDs, with extra layer creation options.
func ogr2ogrGPKG(t *testing.T, dir, name, src string, opts ...string) {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in.geojson")
	must(t, os.WriteFile(in, []byte(src), 0o644))
	args := append([]string{"-f", "GPKG", filepath.Join(dir, name), in, "-nln", "parcels", "-preserve_fid"}, opts...)
	if out, err := exec.Command("ogr2ogr", args...).CombinedOutput(); err != nil {
		t.Fatalf("ogr2ogr: %v: %s", err, out)
	}
}

const keyedParcels = `{"type":"FeatureCollection","features":[
{"type":"Feature","id":101,"properties":{"owner":"Crown"},"geometry":{"type":"Point","coordinates":[174.7,-41.2]}},
{"type":"Feature","id":205,"properties":{"owner":"Council"},"geometry":{"type":"Point","coordinates":[174.8,-41.3]}}]}`

// Issue 24.15: a GeoPackage's primary-key column, which GDAL reads as the
// FID only, is listed as an integer field, carried as that attribute and
// returned as the declared key; GDAL's default column (fid) is not.
func TestGeoPackageDeclaredKey(t *testing.T) {
	dir := t.TempDir()
	ogr2ogrGPKG(t, dir, "keyed.gpkg", keyedParcels, "-lco", "FID=parcel_id")
	ogr2ogrGPKG(t, dir, "plain.gpkg", keyedParcels)

	keyed := scanOne(t, dir, "keyed.gpkg", "parcels")
	if got := fieldsOf(keyed); got != "geom:geometry,parcel_id:integer,owner:string" {
		t.Errorf("keyed fields = %s", got)
	}
	ids := map[int64]any{}
	declared, err := ReadKeyedFeatures(context.Background(), dir, keyed, func(f Feature) error {
		ids[f.FID] = f.Attributes["parcel_id"]
		return nil
	})
	must(t, err)
	if len(declared) != 1 || declared[0] != "parcel_id" {
		t.Errorf("declared key = %v", declared)
	}
	if ids[101] != int64(101) || ids[205] != int64(205) || len(ids) != 2 {
		t.Errorf("parcel_id by FID = %v", ids)
	}

	plain := scanOne(t, dir, "plain.gpkg", "parcels")
	if got := fieldsOf(plain); got != "geom:geometry,owner:string" {
		t.Errorf("plain fields = %s", got)
	}
	declared, err = ReadKeyedFeatures(context.Background(), dir, plain, func(f Feature) error {
		if _, ok := f.Attributes["fid"]; ok {
			t.Errorf("plain attributes = %v", f.Attributes)
		}
		return nil
	})
	must(t, err)
	if declared != nil {
		t.Errorf("plain declared key = %v", declared)
	}
}
