package ingest

import (
	"context"
	"fmt"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func dsByKey(res Result) map[string]Datasource {
	m := map[string]Datasource{}
	for _, d := range res.Datasources {
		k := d.Path
		if d.Layer != "" && strings.HasSuffix(d.Path, ".gpkg") {
			k += "#" + d.Layer
		}
		m[k] = d
	}
	return m
}

func checkExtent(t *testing.T, name string, got *[4]float64, want [4]float64, tol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: extent is nil", name)
		return
	}
	for i := range want {
		if d := got[i] - want[i]; d > tol || d < -tol {
			t.Errorf("%s: extent = %v, want %v ±%v", name, *got, want, tol)
			return
		}
	}
}

func fieldsOf(d Datasource) string {
	var s []string
	for _, f := range d.Fields {
		s = append(s, f.Name+":"+f.Type)
	}
	return strings.Join(s, ",")
}

// unpackUpload builds the mixed upload, archives it with archive/zip (or
// tar.gz, or the 7z tool) and unpacks it.
func unpackUpload(t *testing.T, format string) string {
	t.Helper()
	src := t.TempDir()
	ingesttest.Upload(t, src)
	arch := filepath.Join(t.TempDir(), "upload."+format)
	switch format {
	case "zip":
		zipDir(t, src, arch)
	case "tgz":
		tgzDir(t, src, arch)
	case "7z":
		bin, err := exec.LookPath("7z")
		if err != nil {
			t.Skip("7z not installed")
		}
		cmd := exec.Command(bin, "a", "-bd", "-y", arch, ".")
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("7z: %v\n%s", err, b)
		}
	}
	dst := filepath.Join(t.TempDir(), "unpacked")
	if _, err := Unpack(context.Background(), arch, dst, Limits{}); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestScanUpload(t *testing.T) {
	dir := unpackUpload(t, "zip")
	res, err := Scan(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems {
		t.Errorf("unexpected problem: %+v", p)
	}
	m := dsByKey(res)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	wantKeys := []string{
		"docs/README.txt", "docs/report.pdf", "raster/dem.tif", "raster/scan.tif", "titles.csv",
		"vector/lakes.geojson", "vector/stations.csv", "vector/towns.shp",
		"vector/tracks.csv", "vector/transport.gpkg#parcels", "vector/transport.gpkg#roads",
	}
	if len(res.Datasources) != len(wantKeys) {
		for _, d := range res.Datasources {
			t.Logf("%s %q %s %s", d.Path, d.Layer, d.DataType, d.Format)
		}
		t.Fatalf("got %d datasources, want %d", len(res.Datasources), len(wantKeys))
	}
	for _, k := range wantKeys {
		if _, ok := m[k]; !ok {
			t.Errorf("missing datasource %s (have %v)", k, keys)
		}
	}

	t.Run("shapefile", func(t *testing.T) {
		d := m["vector/towns.shp"]
		if d.DataType != TypeVector || d.Format != "application/x-zipped-shp" || d.GeometryType != "point" ||
			d.CRS != "EPSG:2193" || d.FeatureCount != 3 || d.NumDims != 2 || d.Title != "towns" {
			t.Errorf("towns = %+v", d)
		}
		if got := fieldsOf(d); got != "GEOMETRY:geometry,name:string,pop:integer,area:double,founded:date" {
			t.Errorf("fields = %s", got)
		}
		if d.MetadataPath != "vector/towns.xml" {
			t.Errorf("metadata = %q", d.MetadataPath)
		}
		want := []string{"vector/towns.dbf", "vector/towns.prj", "vector/towns.shp", "vector/towns.shx"}
		if !reflect.DeepEqual(d.Files, want) {
			t.Errorf("files = %v, want %v", d.Files, want)
		}
		// EPSG:2193 points transformed to lon/lat: Christchurch to Auckland.
		checkExtent(t, "towns", d.Extent, [4]float64{172.6, -43.5, 174.9, -36.9}, 0.15)
	})

	t.Run("geopackage", func(t *testing.T) {
		r, p := m["vector/transport.gpkg#roads"], m["vector/transport.gpkg#parcels"]
		for _, d := range []Datasource{r, p} {
			if d.DataType != TypeVector || d.Format != "application/geopackage+sqlite3" || d.CRS != "EPSG:4326" || d.Title != d.Layer {
				t.Errorf("%s = %+v", d.Layer, d)
			}
		}
		if r.GeometryType != "linestring" || r.FeatureCount != 2 || fieldsOf(r) != "geom:geometry,road:string,lanes:integer" {
			t.Errorf("roads = %s %d %s", r.GeometryType, r.FeatureCount, fieldsOf(r))
		}
		if p.GeometryType != "polygon" || p.FeatureCount != 1 || fieldsOf(p) != "geom:geometry,parcel_id:integer,owner:string" {
			t.Errorf("parcels = %s %d %s", p.GeometryType, p.FeatureCount, fieldsOf(p))
		}
		checkExtent(t, "roads", r.Extent, [4]float64{174.7, -41.3, 175.2, -40.9}, 1e-9)
	})

	t.Run("geojson", func(t *testing.T) {
		d := m["vector/lakes.geojson"]
		if d.DataType != TypeVector || d.Format != "application/geo+json" || d.GeometryType != "multipolygon" || d.CRS != "EPSG:4326" || d.FeatureCount != 2 {
			t.Errorf("lakes = %+v", d)
		}
		if got := fieldsOf(d); got != "GEOMETRY:geometry,lake:string,depth:double,protected:boolean,surveyed:date,visits:integer" {
			t.Errorf("fields = %s", got)
		}
		checkExtent(t, "lakes", d.Extent, [4]float64{168.3, -45.3, 176.0, -38.7}, 1e-9)
	})

	t.Run("csv wkt", func(t *testing.T) {
		d := m["vector/tracks.csv"]
		if d.DataType != TypeVector || d.Format != "text/csv" || d.GeometryType != "linestring" || d.CRS != "EPSG:4326" || !d.CRSAssumed || d.FeatureCount != 2 {
			t.Errorf("tracks = %+v", d)
		}
		if got := fieldsOf(d); got != "GEOMETRY:geometry,id:integer,label:string" {
			t.Errorf("fields = %s", got)
		}
		checkExtent(t, "tracks", d.Extent, [4]float64{174.0, -41.5, 175.5, -40.0}, 1e-9)
	})

	t.Run("csv lonlat", func(t *testing.T) {
		d := m["vector/stations.csv"]
		if d.DataType != TypeVector || d.GeometryType != "point" || d.CRS != "EPSG:4326" || d.FeatureCount != 4 {
			t.Errorf("stations = %+v", d)
		}
		if got := fieldsOf(d); !strings.HasPrefix(got, "GEOMETRY:geometry,code:string,name:string") || !strings.HasSuffix(got, "elev:double") {
			t.Errorf("fields = %s", got)
		}
		checkExtent(t, "stations", d.Extent, [4]float64{170.514, -45.901, 174.79, -37.008}, 1e-9)
	})

	t.Run("csv table", func(t *testing.T) {
		d := m["titles.csv"]
		if d.DataType != TypeTable || d.GeometryType != "" || d.CRS != "" || d.Extent != nil || d.FeatureCount != 2 || d.NumDims != 0 {
			t.Errorf("titles = %+v", d)
		}
		if got := fieldsOf(d); got != "title_no:string,owner:string,area_ha:double" {
			t.Errorf("fields = %s", got)
		}
	})

	t.Run("geotiff", func(t *testing.T) {
		d := m["raster/dem.tif"]
		if d.DataType != TypeGrid || d.Format != "image/tiff;subtype=geotiff" || d.CRS != "EPSG:2193" ||
			d.NumBands != 1 || d.Width != 20 || d.Height != 10 || d.Resolution != 100 ||
			!reflect.DeepEqual(d.BandTypes, []string{"Byte"}) {
			t.Errorf("dem = %+v", d)
		}
		checkExtent(t, "dem", d.Extent, [4]float64{174.77, -41.29, 174.80, -41.28}, 0.02)
		s := m["raster/scan.tif"]
		if s.DataType != TypeDocument || s.Format != "image/tiff" {
			t.Errorf("non-georeferenced tiff = %+v", s)
		}
	})

	t.Run("documents", func(t *testing.T) {
		if d := m["docs/report.pdf"]; d.DataType != TypeDocument || d.Format != "application/pdf" || d.Title != "report" {
			t.Errorf("pdf = %+v", d)
		}
		if d := m["docs/README.txt"]; d.DataType != TypeDocument || d.Format != "text/plain" {
			t.Errorf("txt = %+v", d)
		}
	})
}

// The same upload as .tar.gz and .7z gives the same datasources.
func TestScanArchiveFormats(t *testing.T) {
	ref, err := Scan(context.Background(), unpackUpload(t, "zip"))
	must(t, err)
	for _, f := range []string{"tgz", "7z"} {
		t.Run(f, func(t *testing.T) {
			res, err := Scan(context.Background(), unpackUpload(t, f))
			must(t, err)
			if !reflect.DeepEqual(summary(res), summary(ref)) {
				t.Errorf("%s scan differs:\n%v\nwant\n%v", f, summary(res), summary(ref))
			}
		})
	}
}

func summary(r Result) []string {
	var s []string
	for _, d := range r.Datasources {
		s = append(s, fmt.Sprintf("%s|%s|%s|%s|%d|%s", d.Path, d.Layer, d.DataType, d.GeometryType, d.FeatureCount, fieldsOf(d)))
	}
	return s
}

func TestScanProblems(t *testing.T) {
	dir := t.TempDir()
	ingesttest.Shapefile(t, dir, "cut")
	shp := filepath.Join(dir, "cut.shp")
	b, err := os.ReadFile(shp)
	must(t, err)
	must(t, os.WriteFile(shp, b[:len(b)-30], 0o644)) // last point record cut
	ingesttest.Shapefile(t, dir, "ok")
	must(t, os.WriteFile(filepath.Join(dir, "broken.geojson"), []byte(`{"type":"FeatureCollection","features":[{"type":`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "broken.gpkg"), []byte("SQLite format 3\x00 but then garbage"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "broken.tif"), []byte("II*\x00garbage"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "orphan.shx"), []byte("x"), 0o644))
	must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.csv")))

	res, err := Scan(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	probs := map[string]string{}
	for _, p := range res.Problems {
		probs[p.Path] = p.Message
	}
	for _, p := range []string{"cut.shp", "broken.geojson", "broken.gpkg", "broken.tif", "orphan.shx"} {
		if _, ok := probs[p]; !ok {
			t.Errorf("no problem for %s; problems: %v", p, probs)
		}
	}
	t.Logf("problems: %v", probs)
	var paths []string
	for _, d := range res.Datasources {
		paths = append(paths, d.Path)
	}
	if !reflect.DeepEqual(paths, []string{"ok.shp"}) {
		t.Errorf("datasources = %v, want [ok.shp] (symlinks are not followed)", paths)
	}
}

func TestScanCancel(t *testing.T) {
	dir := t.TempDir()
	ingesttest.Shapefile(t, dir, "a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx, dir); err == nil {
		t.Fatal("cancelled scan succeeded")
	}
}

func TestScanMisc(t *testing.T) {
	dir := t.TempDir()
	// A .dbf without its .shp is a table.
	ingesttest.Shapefile(t, dir, "attrs")
	must(t, os.Remove(filepath.Join(dir, "attrs.shp")))
	must(t, os.Remove(filepath.Join(dir, "attrs.shx")))
	must(t, os.Remove(filepath.Join(dir, "attrs.prj")))
	// 3D GeoJSON with a .json extension; a plain .json is a document.
	must(t, os.WriteFile(filepath.Join(dir, "peaks.json"), []byte(`{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"name":"Aoraki"},"geometry":{"type":"Point","coordinates":[170.14,-43.59,3724]}}]}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"a": [1, 2]}`), 0o644))
	// A document with its metadata.
	must(t, os.WriteFile(filepath.Join(dir, "report.pdf"), ingesttest.MinimalPDF(), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "report.xml"), []byte("<dc/>"), 0o644))

	res, err := Scan(context.Background(), dir)
	must(t, err)
	if len(res.Problems) != 0 {
		t.Errorf("problems: %+v", res.Problems)
	}
	m := dsByKey(res)
	if d := m["attrs.dbf"]; d.DataType != TypeTable || d.Format != "application/dbf" || d.FeatureCount != 3 ||
		fieldsOf(d) != "name:string,pop:integer,area:double,founded:date" {
		t.Errorf("dbf = %+v", d)
	}
	if d := m["peaks.json"]; d.DataType != TypeVector || d.GeometryType != "point" || d.NumDims != 3 || d.CRS != "EPSG:4979" /* GDAL: 3D GeoJSON is WGS 84 3D */ || d.Extent == nil {
		t.Errorf("peaks = %+v", d)
	}
	if d := m["config.json"]; d.DataType != TypeDocument || d.Format != "application/json" {
		t.Errorf("config = %+v", d)
	}
	if d := m["report.pdf"]; d.DataType != TypeDocument || d.MetadataPath != "report.xml" {
		t.Errorf("report = %+v", d)
	}
	if len(res.Datasources) != 4 {
		t.Errorf("datasources: %v", summary(res))
	}
}
