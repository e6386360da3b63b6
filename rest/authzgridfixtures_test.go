package rest_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/server/servertest"
)

// The matrix's grid fixture: a small float grid over the roads, 40×30
// cells of 0.005° from (174.70, -41.20), published as a COG the way
// imports store it.
const (
	gridWest, gridNorth, gridCell = 174.70, -41.20, 0.005
	gridCols, gridRows            = 40, 30
)

// addGrids publishes a private and a public grid layer of the fixture
// grid, granted to the matrix's roles as the datasets are: kind "grids",
// for the raster tiles, WMTS and the raster point query.
func (f *fixtures) addGrids(t *testing.T) {
	t.Helper()
	cog := gridCOG(t)
	ctx, c := t.Context(), f.e.Store.Client
	for _, public := range []bool{false, true} {
		name := "Matrix " + vis(public) + " grid published"
		id := f.publishGrid(t, name, cog)
		if !public {
			c.DatasetPermission.Delete().Where(datasetpermission.DatasetKindEQ(access.KindLayer), datasetpermission.DatasetID(id),
				datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).ExecX(ctx)
		}
		for r, lv := range map[role]access.Level{viewer: access.View, downloader: access.Download, editor: access.Edit} {
			if _, err := access.GrantAtLeast(ctx, c, access.KindLayer, id, f.users[r].ID, lv); err != nil {
				t.Fatal(err)
			}
		}
		o := &object{name: "grids/" + vis(public), levels: datasetLevels(public), hidden: !public,
			vars: map[string]string{"id": itoa(id), "tk": "layer"}}
		f.objects["grids"] = append(f.objects["grids"], o)
		f.secrets = append(f.secrets, secret{name, readers(o.levels, lvView)})
	}
}

// gridCOG writes the fixture grid as a cloud-optimised GeoTIFF.
func gridCOG(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src, cog := filepath.Join(dir, "grid.tif"), filepath.Join(dir, "cog.tif")
	ingesttest.Grid(t, src, 4326, gridCols, gridRows, [6]float64{gridWest, gridCell, 0, gridNorth, 0, -gridCell},
		[]ingesttest.GridBand{{Name: "height", Type: godal.Float32, Value: func(col, row int) float64 { return float64(row*10 + col) }}})
	if out, err := exec.Command("gdal_translate", "-q", "-of", "COG", "-co", "COMPRESS=DEFLATE", src, cog).CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v\n%s", err, out)
	}
	return cog
}

// publishGrid stores cog as the published version of a new grid layer
// of the owner's, with the default grants, and returns the layer's id.
func (f *fixtures) publishGrid(t *testing.T, name, cog string) int {
	t.Helper()
	return f.e.PublishGrid(t, f.users[owner].ID, name, servertest.Grid{COG: cog, Kind: layer.KindGrid, Cols: gridCols, Rows: gridRows,
		Extent: []float64{gridWest, gridNorth - gridRows*gridCell, gridWest + gridCols*gridCell, gridNorth}})
}
