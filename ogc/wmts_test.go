package ogc_test

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/rastertiles"
)

// readBands reads a raster's first n bands whole, with its geotransform.
func readBands(t *testing.T, path string, n int) ([][]float64, [6]float64, int, int) {
	t.Helper()
	ds, err := godal.Open(path, godal.RasterOnly())
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer ds.Close()
	st := ds.Structure()
	gt, err := ds.GeoTransform()
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, st.SizeX*st.SizeY)
		if err := ds.Bands()[i].Read(0, 0, out[i], st.SizeX, st.SizeY); err != nil {
			t.Fatal(err)
		}
	}
	return out, gt, st.SizeX, st.SizeY
}

// GDAL's WMTS driver reads a raster layer's capabilities (by the path key
// DP uses): its layer, tile matrix set and extent; a window of it read
// through the tiles equals gdalwarp of the source to EPSG:3857 on the same
// grid, and a grid's window is the ramp of gdalwarp's values,
// transparent on nodata. A private layer's capabilities need the key.
func TestWMTSReadByGDAL(t *testing.T) {
	gridSrc, rgbSrc := writeGridFixtures(t)
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		rgb := publishGrid(t, e, owner.User, "Photo", layer.KindRaster, rgbSrc)
		putJSON(t, e, owner.Key, fmt.Sprintf("/layers/%d/permissions/", rgb), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, owner.ID))
		caps := fmt.Sprintf("%s/services;key=%s/wmts/1.0.0/layer/%d/WMTSCapabilities.xml", e.HTTP.URL, owner.Key, rgb)
		if resp, _ := fetch(t, e, fmt.Sprintf("/services/wmts/1.0.0/layer/%d/WMTSCapabilities.xml", rgb), nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("anonymous capabilities of a private layer: %d", resp.StatusCode)
		}
		// GDAL's WMTS driver caches tiles on disk (./gdalwmscache by
		// default): not in the source tree, and not between tests.
		cache := t.TempDir()
		gdal := func(name string, args ...string) *exec.Cmd {
			cmd := exec.Command(name, args...)
			cmd.Env = append(os.Environ(), "GDAL_ENABLE_WMS_CACHE=NO", "GDAL_DEFAULT_WMS_CACHE_PATH="+cache)
			return cmd
		}
		out, err := gdal("gdalinfo", "-nomd", "WMTS:"+caps).CombinedOutput()
		if err != nil {
			t.Fatalf("gdalinfo: %v\n%s", err, out)
		}
		info := string(out)
		for _, want := range []string{"Driver: WMTS", "Pseudo-Mercator", "Band 4"} {
			if !strings.Contains(info, want) {
				t.Fatalf("gdalinfo lacks %q:\n%s", want, info)
			}
		}
		// The extent: the grid's corners in EPSG:3857 (within a pixel of
		// zoom 12, 38 m).
		corner := func(name string) (float64, float64) {
			for _, line := range strings.Split(info, "\n") {
				if rest, ok := strings.CutPrefix(line, name); ok {
					xy, _, _ := strings.Cut(strings.TrimLeft(rest, " ("), ")")
					xs, ys, _ := strings.Cut(xy, ",")
					x, _ := strconv.ParseFloat(strings.TrimSpace(xs), 64)
					y, _ := strconv.ParseFloat(strings.TrimSpace(ys), 64)
					return x, y
				}
			}
			return 0, 0
		}
		ulx, uly := corner("Upper Left")
		lrx, lry := corner("Lower Right")
		mx := func(lon float64) float64 { return lon * math.Pi / 180 * 6378137 }
		my := func(lat float64) float64 { return math.Log(math.Tan(math.Pi/4+lat*math.Pi/360)) * 6378137 }
		south := gridNorth - gridH*gridCell
		if math.Abs(ulx-mx(gridWest)) > 40 || math.Abs(uly-my(gridNorth)) > 40 || math.Abs(lrx-mx(gridWest+gridW*gridCell)) > 40 || math.Abs(lry-my(south)) > 40 {
			t.Fatalf("%s\nextent %f %f %f %f, want %f %f %f %f", info, ulx, uly, lrx, lry, mx(gridWest), my(gridNorth), mx(gridWest+gridW*gridCell), my(south))
		}

		// A window in the middle, read through the tiles, against gdalwarp.
		dir := t.TempDir()
		got, want := filepath.Join(dir, "got.tif"), filepath.Join(dir, "want.tif")
		cx, cy := mx(gridWest+0.1), my(gridNorth-0.075)
		if out, err := gdal("gdal_translate", "-q", "-projwin", fmt.Sprint(cx-2500), fmt.Sprint(cy+2500), fmt.Sprint(cx+2500), fmt.Sprint(cy-2500),
			"WMTS:"+caps, got).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate: %v\n%s", err, out)
		}
		gotBands, gt, w, h := readBands(t, got, 4)
		if out, err := exec.Command("gdalwarp", "-q", "-t_srs", "EPSG:3857", "-r", "bilinear",
			"-te", fmt.Sprint(gt[0]), fmt.Sprint(gt[3]+gt[5]*float64(h)), fmt.Sprint(gt[0]+gt[1]*float64(w)), fmt.Sprint(gt[3]),
			"-ts", fmt.Sprint(w), fmt.Sprint(h), rgbSrc, want).CombinedOutput(); err != nil {
			t.Fatalf("gdalwarp: %v\n%s", err, out)
		}
		wantBands, _, _, _ := readBands(t, want, 3)
		if w < 100 || h < 100 {
			t.Fatalf("window %dx%d", w, h)
		}
		bad := 0
		for i := range wantBands[0] {
			if gotBands[3][i] != 255 {
				t.Fatalf("pixel %d inside the data is not opaque: %v", i, gotBands[3][i])
			}
			for b := range 3 {
				if math.Abs(gotBands[b][i]-wantBands[b][i]) > 2 {
					bad++
				}
			}
		}
		if bad > len(wantBands[0])/100 {
			t.Fatalf("%d of %d band values differ from gdalwarp by more than 2", bad, 3*len(wantBands[0]))
		}

		// A grid (public) around its nodata block: the ramp of gdalwarp's
		// values, transparent where gdalwarp gives nodata.
		grid := publishGrid(t, e, owner.User, "Heights", layer.KindGrid, gridSrc)
		gridCaps := fmt.Sprintf("%s/services/wmts/1.0.0/layer/%d/WMTSCapabilities.xml", e.HTTP.URL, grid)
		got, want = filepath.Join(dir, "got-grid.tif"), filepath.Join(dir, "want-grid.tif")
		cx, cy = mx(gridWest+275*gridCell), my(gridNorth-85*gridCell)
		if out, err := gdal("gdal_translate", "-q", "-projwin", fmt.Sprint(cx-1500), fmt.Sprint(cy+1500), fmt.Sprint(cx+1500), fmt.Sprint(cy-1500),
			"WMTS:"+gridCaps, got).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate: %v\n%s", err, out)
		}
		gotBands, gt, w, h = readBands(t, got, 4)
		if out, err := exec.Command("gdalwarp", "-q", "-t_srs", "EPSG:3857", "-r", "bilinear",
			"-te", fmt.Sprint(gt[0]), fmt.Sprint(gt[3]+gt[5]*float64(h)), fmt.Sprint(gt[0]+gt[1]*float64(w)), fmt.Sprint(gt[3]),
			"-ts", fmt.Sprint(w), fmt.Sprint(h), gridSrc, want).CombinedOutput(); err != nil {
			t.Fatalf("gdalwarp: %v\n%s", err, out)
		}
		wantBands, _, _, _ = readBands(t, want, 1)
		hi := float64(gridH-1)*10 + float64(gridW-1)
		bad, masked := 0, 0
		for i, v := range wantBands[0] {
			if v == gridNodata {
				masked++
				if gotBands[3][i] != 0 {
					bad++
				}
				continue
			}
			c := rastertiles.Ramp(v, 0, hi)
			if gotBands[3][i] != 255 || math.Abs(gotBands[0][i]-float64(c.R)) > 3 || math.Abs(gotBands[1][i]-float64(c.G)) > 3 || math.Abs(gotBands[2][i]-float64(c.B)) > 3 {
				bad++
			}
		}
		if masked < len(wantBands[0])/10 || bad > len(wantBands[0])/100 {
			t.Fatalf("grid: %d of %d pixels differ from the ramp of gdalwarp's values (%d nodata)", bad, len(wantBands[0]), masked)
		}
	})
}
