package ogc_test

import (
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/server/servertest"
)

// The grid fixtures: EPSG:4326 cells of gridCell degrees from
// (gridWest, gridNorth), gridW×gridH of them, around Wellington.
const (
	gridWest, gridNorth = 174.70, -41.20
	gridCell            = 0.0005
	gridW, gridH        = 400, 300
	gridNodata          = -9999
)

// gridValue is the grid fixture's cell value: a plane, with a block of
// nodata.
func gridValue(col, row int) float64 {
	if gridNodataCell(col, row) {
		return gridNodata
	}
	return float64(row)*10 + float64(col)
}

// gridNodataCell reports whether a cell is in the nodata block.
func gridNodataCell(col, row int) bool { return col >= 250 && col < 300 && row >= 50 && row < 120 }

// rgbOf is the colour fixture's colour of a cell.
func rgbOf(col, row int) [3]float64 { return [3]float64{float64(col) * 0.6, float64(row) * 0.8, 128} }

// writeGridFixtures writes the grid (one float32 band with nodata) and
// the colour raster (three byte bands) as GeoTIFFs, returning their paths.
func writeGridFixtures(t *testing.T) (grid, rgb string) {
	t.Helper()
	dir := t.TempDir()
	gt := [6]float64{gridWest, gridCell, 0, gridNorth, 0, -gridCell}
	nd := float64(gridNodata)
	grid, rgb = filepath.Join(dir, "grid.tif"), filepath.Join(dir, "rgb.tif")
	ingesttest.Grid(t, grid, 4326, gridW, gridH, gt, []ingesttest.GridBand{{Name: "height", Type: godal.Float32, NoData: &nd, Value: gridValue}})
	var bands []ingesttest.GridBand
	for i, name := range []string{"red", "green", "blue"} {
		bands = append(bands, ingesttest.GridBand{Name: name, Type: godal.Byte,
			Value: func(c, r int) float64 { return rgbOf(c, r)[i] }})
	}
	ingesttest.Grid(t, rgb, 4326, gridW, gridH, gt, bands)
	return grid, rgb
}

// publishGrid stores src as the published version of a new grid or
// raster layer (a COG in blob storage, as imports write it), with the
// default grants, and returns the layer's id.
func publishGrid(t *testing.T, e *env, owner *ent.User, name string, kind layer.Kind, src string) int {
	t.Helper()
	cog := filepath.Join(t.TempDir(), "cog.tif")
	if out, err := exec.Command("gdal_translate", "-q", "-of", "COG", "-co", "COMPRESS=DEFLATE", "-co", "BLOCKSIZE=256",
		"-co", "OVERVIEWS=AUTO", src, cog).CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v\n%s", err, out)
	}
	return e.PublishGrid(t, owner.ID, name, servertest.Grid{COG: cog, Kind: kind, Cols: gridW, Rows: gridH,
		Extent: []float64{gridWest, gridNorth - gridH*gridCell, gridWest + gridW*gridCell, gridNorth}})
}

// cellAt is the fixture cell under a longitude, latitude (fractional).
func cellAt(lon, lat float64) (col, row float64) {
	return (lon - gridWest) / gridCell, (gridNorth - lat) / gridCell
}

// pixelLonLat is the centre of pixel (px, py) of tile z/x/y.
func pixelLonLat(z, x, y int, px, py float64) (lon, lat float64) {
	n := math.Exp2(float64(z))
	fx, fy := (float64(x)+(px+0.5)/256)/n, (float64(y)+(py+0.5)/256)/n
	lon = fx*360 - 180
	lat = math.Atan(math.Sinh(math.Pi*(1-2*fy))) * 180 / math.Pi
	return lon, lat
}
