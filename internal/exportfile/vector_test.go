package exportfile

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layerCase is one sample layer written in a test.
type layerCase struct {
	name, geomType string
	rows           []sampleRow
}

func sampleLayers() []layerCase {
	return []layerCase{
		{"nz-points", "point", samplePoints()},
		{"nz-lines", "linestring", sampleLines()},
		{"nz-polygons", "polygon", samplePolygons()},
	}
}

// writeAndCheck writes each sample layer in f, cropped and reprojected to
// epsg, and checks what GDAL reads back.
func writeAndCheck(t *testing.T, mime string, epsg int, o checkOpts, layers []layerCase) {
	t.Helper()
	f, ok := FormatByMIME(KindVector, mime)
	if !ok {
		t.Fatalf("no vector format %s", mime)
	}
	dir := t.TempDir()
	for _, lc := range layers {
		t.Run(lc.name, func(t *testing.T) {
			item := sampleItem(t, lc.name, lc.geomType, lc.rows)
			opts := Options{CRS: "EPSG:" + itoa(epsg)}
			if o.clipped {
				opts.Clip = clipWKB(t)
			}
			res, err := WriteVector(context.Background(), dir, item, f, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := expectedIDs(t, lc.rows, o.clipped)
			if res.Features != int64(len(want)) {
				t.Errorf("Result.Features = %d, want %d", res.Features, len(want))
			}
			for _, side := range []string{lc.name + ".xml", lc.name + ".license.txt"} {
				if !slices.Contains(res.Files, side) {
					t.Errorf("Files %v lack %s", res.Files, side)
				}
			}
			path := filepath.Join(dir, lc.name+f.Extension())
			layer := ""
			if f.out.layerName != nil {
				layer = f.out.layerName(lc.geomType)
			}
			o.dataEPSG = epsg
			if f.FixedCRS() != "" {
				o.dataEPSG = 4326
			}
			rb := openBack(t, path, layer, o)
			if !o.noAttrs {
				rb.nullIDs = nullsOf(t, path, layer)
			}
			if rb.count != len(want) {
				t.Errorf("GDAL reads %d features, want %d", rb.count, len(want))
			}
			if o.epsg != 0 {
				checkSRS(t, rb, o.epsg, o.sameCRS)
			}
			if !o.noAttrs {
				for id := range want {
					if _, ok := rb.features[id]; !ok {
						t.Errorf("feature id %d is missing", id)
					}
				}
				checkAttrs(t, rb, lc.rows, o)
			}
		})
	}
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

func TestGeoPackageCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEGeoPackage, 2193, checkOpts{epsg: 2193, typed: true, nulls: true, clipped: true}, sampleLayers())
}

func TestGeoPackageWholeInWGS84(t *testing.T) {
	writeAndCheck(t, MIMEGeoPackage, 4326, checkOpts{epsg: 4326, typed: true, nulls: true}, sampleLayers())
}

func TestShapefileCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEShapefile, 2193, checkOpts{epsg: 2193, clipped: true}, sampleLayers())
}

func TestFlatGeobufCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEFlatGeobuf, 2193, checkOpts{epsg: 2193, typed: true, nulls: true, clipped: true}, sampleLayers())
}

func TestGeoJSONCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEGeoJSON, 2193, checkOpts{epsg: 2193, nulls: true, clipped: true}, sampleLayers())
}

func TestCSVCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMECSV, 2193, checkOpts{typed: true, clipped: true}, sampleLayers())
}

func TestKMLIsAlwaysWGS84(t *testing.T) {
	writeAndCheck(t, MIMEKML, 2193, checkOpts{epsg: 4326, clipped: true}, sampleLayers())
}

func TestKMZIsAlwaysWGS84(t *testing.T) {
	writeAndCheck(t, MIMEKMZ, 2193, checkOpts{epsg: 4326, clipped: true}, sampleLayers())
}

func TestFileGDBCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEFileGDB, 2193, checkOpts{epsg: 2193, nulls: true, clipped: true}, sampleLayers())
}

func TestMapInfoCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEMapInfo, 2193, checkOpts{epsg: 2193, clipped: true, sameCRS: true}, sampleLayers())
}

func TestDXFCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEDXF, 2193, checkOpts{noAttrs: true, clipped: true}, sampleLayers())
}

func TestGMLCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEGML, 2193, checkOpts{epsg: 2193, clipped: true}, sampleLayers())
}

func TestGPXPointsAndLines(t *testing.T) {
	writeAndCheck(t, MIMEGPX, 2193, checkOpts{epsg: 4326, clipped: true, looseText: true}, sampleLayers()[:2])
}

// TestTablesInEveryTableFormat writes a table (no geometry: the crop area
// and CRS do not apply) in each table format and reads it back.
func TestTablesInEveryTableFormat(t *testing.T) {
	rows := sampleTable()
	for _, f := range Formats(KindTable) {
		t.Run(f.Display, func(t *testing.T) {
			dir := t.TempDir()
			item := sampleItem(t, "nz-table", "", rows)
			res, err := WriteVector(context.Background(), dir, item, f, Options{CRS: "EPSG:2193", Clip: clipWKB(t)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Features != int64(len(rows)) {
				t.Errorf("Result.Features = %d, want %d", res.Features, len(rows))
			}
			path := filepath.Join(dir, "nz-table"+f.Extension())
			if f.Driver == "ESRI Shapefile" {
				path = filepath.Join(dir, "nz-table.dbf")
			}
			o := checkOpts{dataEPSG: 4326, nulls: f.Driver == "GPKG" || f.Driver == "GeoJSON" || f.Driver == "OpenFileGDB"}
			rb := openBack(t, path, "", o)
			rb.nullIDs = nullsOf(t, path, "")
			if rb.count != len(rows) {
				t.Errorf("GDAL reads %d rows, want %d", rb.count, len(rows))
			}
			checkAttrs(t, rb, rows, o)
		})
	}
}

func TestRejectsWithReasons(t *testing.T) {
	for _, c := range []struct {
		mime string
		kind Kind
		geom string
		word string
	}{
		{MIMEDXF, KindTable, "", "DXF"},
		{MIMEGPX, KindVector, "polygon", "GPX"},
		{MIMEGPX, KindVector, "multipolygon", "GPX"},
		{MIMECSVXY, KindVector, "linestring", "X/Y"},
		{MIMEShapefile, KindVector, "geometrycollection", "Shapefile"},
	} {
		f, ok := FormatByMIME(KindVector, c.mime)
		if !ok {
			t.Fatalf("no format %s", c.mime)
		}
		reason, ok := f.Accepts(c.kind, c.geom)
		if ok || !strings.Contains(reason, c.word) || !strings.HasSuffix(reason, ".") {
			t.Errorf("%s accepts %s %q: %v, reason %q", c.mime, c.kind, c.geom, ok, reason)
		}
		item := sampleItem(t, "x", c.geom, nil)
		if _, err := WriteVector(context.Background(), t.TempDir(), item, f, Options{}); err == nil || err.Error() != reason {
			t.Errorf("WriteVector of a rejected item: %v, want %q", err, reason)
		}
	}
	for _, c := range []struct {
		mime, geom string
	}{{MIMEGPX, "point"}, {MIMEGPX, "multilinestring"}, {MIMECSVXY, "point"}, {MIMEDXF, "polygon"}} {
		f, _ := FormatByMIME(KindVector, c.mime)
		if reason, ok := f.Accepts(KindVector, c.geom); !ok {
			t.Errorf("%s refuses %s: %s", c.mime, c.geom, reason)
		}
	}
}

func TestCatalogue(t *testing.T) {
	if f, ok := FormatByMIME(KindVector, "applicaton/x-ogc-filegdb"); !ok || f.Driver != "OpenFileGDB" {
		t.Errorf("the misspelt File Geodatabase MIME finds %+v", f)
	}
	if f, ok := FormatByMIME(KindVector, "application/vnd.geo+json"); !ok || f.MIME != MIMEGeoJSON {
		t.Errorf("the GeoJSON alias finds %+v", f)
	}
	if _, ok := FormatByMIME(KindVector, "image/vnd.dwg"); ok {
		t.Error("DWG is offered but GDAL has no DWG writer")
	}
	if _, ok := FormatByMIME(KindVector, MIMEXLSX); ok {
		t.Error("XLSX is offered for layers; it is for tables only")
	}
	if _, ok := FormatByMIME(KindTable, MIMEDXF); ok {
		t.Error("DXF is offered for tables")
	}
	for _, k := range []Kind{KindVector, KindTable} {
		for _, f := range Formats(k) {
			if f.Kind != k || f.Display == "" || f.Extension() == "" {
				t.Errorf("%s format %+v is incomplete", k, f.MIME)
			}
			want := ""
			if f.MIME == MIMEKML || f.MIME == MIMEKMZ || f.MIME == MIMEGPX {
				want = "EPSG:4326"
			}
			if f.FixedCRS() != want {
				t.Errorf("%s FixedCRS = %q, want %q", f.MIME, f.FixedCRS(), want)
			}
		}
	}
}

// TestGeoPackageIndexAndBooleans: the spatial index built at the end is
// there, and booleans keep their subtype (ogrinfo, GDAL's own tool).
func TestGeoPackageIndexAndBooleans(t *testing.T) {
	dir := t.TempDir()
	f, _ := FormatByMIME(KindVector, MIMEGeoPackage)
	if _, err := WriteVector(context.Background(), dir, sampleItem(t, "pts", "point", samplePoints()), f, Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "pts.gpkg")
	out, err := exec.Command("ogrinfo", "-q", path, "-sql", "SELECT HasSpatialIndex('pts', 'geom')").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "HasSpatialIndex (Integer) = 1") {
		t.Errorf("no spatial index: %v\n%s", err, out)
	}
	out, err = exec.Command("ogrinfo", "-so", path, "pts").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok: Integer(Boolean)") || !strings.Contains(string(out), "stamp: DateTime") {
		t.Errorf("field types:\n%s", out)
	}
}
