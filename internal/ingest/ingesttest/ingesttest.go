// Package ingesttest builds real geospatial test inputs with GDAL at test
// time (Shapefile, GeoPackage, GeoTIFF, a minimal PDF, a mixed upload
// tree), so no binary fixture is checked in.
package ingesttest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// NZPoints are NZTM (EPSG:2193) coordinates of Wellington, Auckland and
// Christchurch.
var NZPoints = []struct {
	Name string
	X, Y float64
	Pop  int
	Area float64
	Date time.Time
}{
	{"Wellington", 1748735, 5427916, 215000, 289.9, time.Date(1840, 1, 22, 0, 0, 0, 0, time.UTC)},
	{"Auckland", 1757000, 5920000, 1657000, 1086.0, time.Date(1840, 9, 18, 0, 0, 0, 0, time.UTC)},
	{"Christchurch", 1570000, 5180000, 389000, 1426.0, time.Date(1856, 7, 31, 0, 0, 0, 0, time.UTC)},
}

// Shapefile creates <dir>/<name>.shp with points in EPSG:2193 through
// godal's create API.
func Shapefile(t testing.TB, dir, name string) {
	t.Helper()
	gdal.Init()
	sr, err := godal.NewSpatialRefFromEPSG(2193)
	must(t, err)
	defer sr.Close()
	ds, err := godal.CreateVector(godal.Shapefile, filepath.Join(dir, name+".shp"))
	must(t, err)
	l, err := ds.CreateLayer(name, sr, godal.GTPoint,
		godal.NewFieldDefinition("name", godal.FTString),
		godal.NewFieldDefinition("pop", godal.FTInt),
		godal.NewFieldDefinition("area", godal.FTReal),
		godal.NewFieldDefinition("founded", godal.FTDate))
	must(t, err)
	for _, p := range NZPoints {
		g, err := godal.NewGeometryFromWKT("POINT ("+ftoa(p.X)+" "+ftoa(p.Y)+")", sr)
		must(t, err)
		f, err := l.NewFeature(g)
		must(t, err)
		flds := f.Fields()
		must(t, f.SetFieldValue(flds["name"], p.Name))
		must(t, f.SetFieldValue(flds["pop"], p.Pop))
		must(t, f.SetFieldValue(flds["area"], p.Area))
		must(t, f.SetFieldValue(flds["founded"], p.Date))
		must(t, l.UpdateFeature(f))
		f.Close()
		g.Close()
	}
	must(t, ds.Close())
}

func ftoa(f float64) string { return itoa(int64(f)) }

// GeoPackage creates a GeoPackage with a "roads" line layer and a
// "parcels" polygon layer (EPSG:4326), copying layers from GeoJSON opened
// with GDAL.
func GeoPackage(t testing.TB, dir string) {
	t.Helper()
	gdal.Init()
	tmp := t.TempDir()
	roads := filepath.Join(tmp, "roads.geojson")
	parcels := filepath.Join(tmp, "parcels.geojson")
	os.WriteFile(roads, []byte(`{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"road":"SH1","lanes":2},"geometry":{"type":"LineString","coordinates":[[174.7,-41.3],[174.8,-41.2]]}},
{"type":"Feature","properties":{"road":"SH2","lanes":4},"geometry":{"type":"LineString","coordinates":[[175.0,-41.1],[175.2,-40.9]]}}]}`), 0o644)
	os.WriteFile(parcels, []byte(`{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"parcel_id":17,"owner":"Crown"},"geometry":{"type":"Polygon","coordinates":[[[172.6,-43.6],[172.7,-43.6],[172.7,-43.5],[172.6,-43.6]]]}}]}`), 0o644)

	gpkg, err := godal.CreateVector(godal.GeoPackage, filepath.Join(dir, "transport.gpkg"))
	must(t, err)
	for _, src := range []struct{ path, name string }{{roads, "roads"}, {parcels, "parcels"}} {
		in, err := godal.Open(src.path, godal.VectorOnly())
		must(t, err)
		_, err = gpkg.CopyLayer(in.Layers()[0], src.name)
		must(t, err)
		must(t, in.Close())
	}
	must(t, gpkg.Close())
}

// GeoTIFF creates a 20x10 single-band Byte GeoTIFF in EPSG:2193 with
// 100 m pixels, near Wellington.
func GeoTIFF(t testing.TB, path string, georef bool) {
	t.Helper()
	gdal.Init()
	ds, err := godal.Create(godal.GTiff, path, 1, godal.Byte, 20, 10)
	must(t, err)
	if georef {
		sr, err := godal.NewSpatialRefFromEPSG(2193)
		must(t, err)
		must(t, ds.SetSpatialRef(sr))
		sr.Close()
		must(t, ds.SetGeoTransform([6]float64{1748000, 100, 0, 5428000, 0, -100}))
	}
	buf := make([]byte, 20*10)
	for i := range buf {
		buf[i] = byte(i)
	}
	must(t, ds.Bands()[0].Write(0, 0, buf, 20, 10))
	must(t, ds.Close())
}

// MinimalPDF is a valid one-page PDF with correct xref offsets.
func MinimalPDF() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
	}
	out := []byte("%PDF-1.4\n")
	var offs []int
	for i, o := range objs {
		offs = append(offs, len(out))
		out = append(out, []byte(itoa(int64(i+1))+" 0 obj\n"+o+"\nendobj\n")...)
	}
	xref := len(out)
	out = append(out, []byte("xref\n0 4\n0000000000 65535 f \n")...)
	for _, off := range offs {
		s := itoa(int64(off))
		for len(s) < 10 {
			s = "0" + s
		}
		out = append(out, []byte(s+" 00000 n \n")...)
	}
	out = append(out, []byte("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n"+itoa(int64(xref))+"\n%%EOF\n")...)
	return out
}

// Upload writes the full mixed upload into dir.
func Upload(t testing.TB, dir string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(dir, "vector"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "raster"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	Shapefile(t, filepath.Join(dir, "vector"), "towns")
	must(t, os.WriteFile(filepath.Join(dir, "vector", "towns.xml"), []byte(`<?xml version="1.0"?><metadata><title>Towns</title></metadata>`), 0o644))
	GeoPackage(t, filepath.Join(dir, "vector"))
	must(t, os.WriteFile(filepath.Join(dir, "vector", "lakes.geojson"), []byte(`{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"lake":"Taupo","depth":186.0,"protected":true,"surveyed":"2020-03-04","visits":12},"geometry":{"type":"Polygon","coordinates":[[[175.7,-38.7],[176.0,-38.7],[176.0,-39.0],[175.7,-38.7]]]}},
{"type":"Feature","properties":{"lake":"Wakatipu","depth":380.0,"protected":false,"surveyed":"2021-05-06","visits":3},"geometry":{"type":"MultiPolygon","coordinates":[[[[168.3,-45.0],[168.7,-45.0],[168.7,-45.3],[168.3,-45.0]]]]}}]}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "vector", "tracks.csv"), []byte(
		"id,WKT,label\n1,\"LINESTRING (174.0 -41.0, 174.5 -41.5)\",a\n2,\"LINESTRING (175.0 -40.0, 175.5 -40.5)\",b\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "vector", "stations.csv"), []byte(
		"code,name,longitude,latitude,elev\nWLG,Kelburn,174.768,-41.286,125.5\nAKL,Mangere,174.79,-37.008,6.0\nCHC,Airport,172.532,-43.489,37.2\nDUD,Musselburgh,170.514,-45.901,2.0\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "titles.csv"), []byte(
		"title_no,owner,area_ha\nWN1/1,Smith,1.5\nWN1/2,Jones,2.25\n"), 0o644))
	GeoTIFF(t, filepath.Join(dir, "raster", "dem.tif"), true)
	GeoTIFF(t, filepath.Join(dir, "raster", "scan.tif"), false)
	must(t, os.WriteFile(filepath.Join(dir, "docs", "report.pdf"), MinimalPDF(), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "docs", "README.txt"), []byte("read me"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".DS_Store"), []byte("junk"), 0o644))
}

// GridBand is one band of a Grid fixture.
type GridBand struct {
	Name string
	// Type is the pixel type; only the first band's counts.
	Type   godal.DataType
	NoData *float64
	// Value gives the cell value at a column and row.
	Value func(col, row int) float64
}

// Grid creates a GeoTIFF of w×h cells in EPSG:epsg with the given
// geotransform, one band per GridBand, each band's cells from its Value
// function and its nodata value set. Every band has the first band's
// pixel type: a GeoTIFF holds one.
func Grid(t testing.TB, path string, epsg, w, h int, gt [6]float64, bands []GridBand) {
	t.Helper()
	gdal.Init()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	ds, err := godal.Create(godal.GTiff, path, len(bands), bands[0].Type, w, h)
	must(t, err)
	sr, err := godal.NewSpatialRefFromEPSG(epsg)
	must(t, err)
	must(t, ds.SetSpatialRef(sr))
	sr.Close()
	must(t, ds.SetGeoTransform(gt))
	buf := make([]float64, w*h)
	for i, b := range bands {
		band := ds.Bands()[i]
		for row := 0; row < h; row++ {
			for col := 0; col < w; col++ {
				buf[row*w+col] = b.Value(col, row)
			}
		}
		must(t, band.Write(0, 0, buf, w, h))
		if b.NoData != nil {
			must(t, band.SetNoData(*b.NoData))
		}
		if b.Name != "" {
			must(t, band.SetDescription(b.Name))
		}
	}
	must(t, ds.Close())
}

// SparseGrid creates a tiled, sparse one-band Byte GeoTIFF of w×h cells
// in EPSG:2193 with no cell written: a file of a few kilobytes that
// declares as large a grid as asked (the shape of a hostile upload).
func SparseGrid(t testing.TB, path string, w, h int) {
	t.Helper()
	gdal.Init()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	ds, err := godal.Create(godal.GTiff, path, 1, godal.Byte, w, h,
		godal.CreationOption("TILED=YES", "SPARSE_OK=TRUE", "BIGTIFF=YES", "COMPRESS=DEFLATE"))
	must(t, err)
	sr, err := godal.NewSpatialRefFromEPSG(2193)
	must(t, err)
	must(t, ds.SetSpatialRef(sr))
	sr.Close()
	must(t, ds.SetGeoTransform([6]float64{1700000, 1, 0, 5500000, 0, -1}))
	must(t, ds.Close())
}

// TimesCSV creates <dir>/<name>.csv, points (EPSG:4326 WKT) with a time of
// day field, "opens", as GDAL writes them: ogr2ogr's CSV driver with a
// .csvt naming the column types (Time), copied from GeoJSON. The opening
// times are 12:34:56, 01:02:03.250 and none.
func TimesCSV(t testing.TB, dir, name string) {
	t.Helper()
	gdal.Init()
	src := filepath.Join(t.TempDir(), "times.geojson")
	must(t, os.WriteFile(src, []byte(`{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"name":"Kelburn","opens":"12:34:56"},"geometry":{"type":"Point","coordinates":[174.768,-41.286]}},
{"type":"Feature","properties":{"name":"Mangere","opens":"01:02:03.250"},"geometry":{"type":"Point","coordinates":[174.79,-37.008]}},
{"type":"Feature","properties":{"name":"Airport","opens":null},"geometry":{"type":"Point","coordinates":[172.532,-43.489]}}]}`), 0o644))
	in, err := godal.Open(src, godal.VectorOnly())
	must(t, err)
	defer in.Close()
	out, err := in.VectorTranslate(filepath.Join(dir, name+".csv"), []string{"-f", "CSV",
		"-lco", "GEOMETRY=AS_WKT", "-lco", "CREATE_CSVT=YES", "-nln", name})
	must(t, err)
	must(t, out.Close())
}
