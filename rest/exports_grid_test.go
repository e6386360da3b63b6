package rest_test

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/server"
)

// demNodata is the nodata value of the test grid.
const demNodata = -9999

// demCrop is a pentagon (EPSG:4326) inside the test grid, which covers
// 1,740,000–1,780,000 E and 5,910,000–5,940,000 N (NZTM, north-east of
// Auckland: about 174.57–175.02 E, 36.68–36.94 S).
var demCrop = [][2]float64{{174.65, -36.72}, {174.85, -36.70}, {174.95, -36.80}, {174.80, -36.90}, {174.62, -36.85}, {174.65, -36.72}}

// writeDEM generates the grid: float32, EPSG:2193, 100 m cells, a block
// of nodata, fractional values.
func writeDEM(t *testing.T, path string) {
	t.Helper()
	nd := float64(demNodata)
	ingesttest.Grid(t, path, 2193, 400, 300, [6]float64{1740000, 100, 0, 5940000, 0, -100}, []ingesttest.GridBand{{
		Name: "height", Type: godal.Float32, NoData: &nd,
		Value: func(x, y int) float64 {
			if x > 150 && x < 200 && y > 100 && y < 160 {
				return demNodata
			}
			return float64(y)*10 + float64(x)*0.25 + 0.125
		}}})
}

// rasterOf is a one-band raster read back whole.
type rasterOf struct {
	w, h   int
	geo    [6]float64
	wkt    string
	cells  []float64
	nodata *float64
}

func readRaster(t *testing.T, path string) rasterOf {
	t.Helper()
	ds, err := godal.Open(path, godal.RasterOnly())
	if err != nil {
		t.Fatalf("GDAL cannot open %s: %v", path, err)
	}
	defer ds.Close()
	st := ds.Structure()
	r := rasterOf{w: st.SizeX, h: st.SizeY, wkt: ds.Projection(), cells: make([]float64, st.SizeX*st.SizeY)}
	if r.geo, err = ds.GeoTransform(); err != nil {
		t.Fatal(err)
	}
	b := ds.Bands()[0]
	if err := b.Read(0, 0, r.cells, r.w, r.h); err != nil {
		t.Fatal(err)
	}
	if nd, ok := b.NoData(); ok {
		r.nodata = &nd
	}
	return r
}

// TestExportGridCroppedReprojected: a grid layer (a float32 GeoTIFF in
// EPSG:2193 with nodata, imported and published) exported as GeoTIFF,
// cropped by a polygon and reprojected to EPSG:4326, equals gdalwarp run
// on the uploaded file with the writer's switches cell for cell, with the
// same CRS and geotransform; validation gives a raster estimate, and a
// pixel limit is named with its value.
func TestExportGridCroppedReprojected(t *testing.T) {
	eachWith(t, nil, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "GridExporter")
		srcPath := filepath.Join(t.TempDir(), "dem.tif")
		writeDEM(t, srcPath)
		body, err := os.ReadFile(srcPath)
		if err != nil {
			t.Fatal(err)
		}
		src := upload(t, e, owner.Key, map[string][]byte{"dem.tif": body})
		if sc := waitScan(t, e, owner.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		lid := publishLayerFrom(t, e, owner, "NZ DEM", datasources(t, e, owner.Key, src.ID)["dem.tif"].ID)
		item := fmt.Sprintf("%s/layers/%d/", e.API, lid)
		extent := map[string]any{"type": "Polygon", "coordinates": [][][2]float64{demCrop}}
		req0 := map[string]any{"name": "dem", "crs": "EPSG:4326", "formats": map[string]any{"grid": "image/tiff;subtype=geotiff"},
			"items": []map[string]any{{"item": item}}, "extent": extent}

		v := doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: owner.Key, Body: req0}, http.StatusOK)
		if !v.IsValid || v.SizeEstimateZipped <= 0 || len(v.Items) != 1 {
			t.Fatalf("validation %+v", v)
		}
		x := waitExport(t, e, owner.Key, createExport(t, e, owner.Key, req0))
		if x.State != "complete" {
			t.Fatalf("export %+v (error %s)", x, deref(x.Error))
		}
		dir, _ := download(t, e, owner.Key, x)
		got := readRaster(t, findFile(t, dir, "nz-dem", ".tif"))

		cut := filepath.Join(t.TempDir(), "cut.geojson")
		var pts []string
		for _, p := range demCrop {
			pts = append(pts, fmt.Sprintf("[%g,%g]", p[0], p[1]))
		}
		if err := os.WriteFile(cut, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},`+
			`"geometry":{"type":"Polygon","coordinates":[[`+strings.Join(pts, ",")+`]]}}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		ref := filepath.Join(t.TempDir(), "ref.tif")
		if out, err := exec.Command("gdalwarp", "-q", "-overwrite", "-t_srs", "EPSG:4326", "-cutline", cut, "-crop_to_cutline",
			"-dstnodata", fmt.Sprint(demNodata), "-r", "near", srcPath, ref).CombinedOutput(); err != nil {
			t.Fatalf("gdalwarp: %v\n%s", err, out)
		}
		want := readRaster(t, ref)
		if got.w != want.w || got.h != want.h {
			t.Fatalf("size %dx%d, gdalwarp %dx%d", got.w, got.h, want.w, want.h)
		}
		for i := range want.geo {
			if math.Abs(got.geo[i]-want.geo[i]) > 1e-9*math.Max(1, math.Abs(want.geo[i])) {
				t.Fatalf("geotransform %v, gdalwarp %v", got.geo, want.geo)
			}
		}
		gs, err := godal.NewSpatialRefFromWKT(got.wkt)
		if err != nil {
			t.Fatalf("the export has no CRS: %v", err)
		}
		defer gs.Close()
		wgs, _ := godal.NewSpatialRefFromEPSG(4326)
		defer wgs.Close()
		if !gs.IsSame(wgs) {
			t.Fatalf("CRS %s, want EPSG:4326", got.wkt)
		}
		if got.nodata == nil || *got.nodata != demNodata {
			t.Fatalf("nodata %v", got.nodata)
		}
		valued, masked := 0, 0
		for i := range want.cells {
			if got.cells[i] != want.cells[i] {
				t.Fatalf("cell (%d,%d) = %v, gdalwarp %v", i%want.w, i/want.w, got.cells[i], want.cells[i])
			}
			if want.cells[i] == demNodata {
				masked++
			} else {
				valued++
			}
		}
		if valued == 0 || masked == 0 {
			t.Fatalf("%d valued and %d nodata cells: the crop should cut the grid", valued, masked)
		}
	})
}

// TestExportGridPixelLimit: a grid item over the operator's cell limit is
// invalid with limit-pixels naming the limit.
func TestExportGridPixelLimit(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.Exports.MaxRasterPixels = 50000 }, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "GridExporter")
		srcPath := filepath.Join(t.TempDir(), "dem.tif")
		writeDEM(t, srcPath)
		body, err := os.ReadFile(srcPath)
		if err != nil {
			t.Fatal(err)
		}
		src := upload(t, e, owner.Key, map[string][]byte{"dem.tif": body})
		if sc := waitScan(t, e, owner.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		lid := publishLayerFrom(t, e, owner, "NZ DEM", datasources(t, e, owner.Key, src.ID)["dem.tif"].ID)
		item := fmt.Sprintf("%s/layers/%d/", e.API, lid)
		v := doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: owner.Key, Body: map[string]any{
			"formats": map[string]any{"grid": "image/tiff;subtype=geotiff"}, "items": []map[string]any{{"item": item}}}}, http.StatusOK)
		// 400 × 300 = 120,000 cells.
		if v.IsValid || !hasReason(v.reasonsOf(t, item), "limit-pixels: 120,000 cells exceed the limit of 50,000") {
			t.Fatalf("validation %+v", v)
		}
	})
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
