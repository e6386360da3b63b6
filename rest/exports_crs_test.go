package rest_test

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/server/servertest"
)

// Issue 24, 0g: validation passed exports the job then failed or got
// wrong: a whole-world grid in EPSG:3031 ("Attempt to create
// -2147483648x-2147483648 dataset"), a vertical CRS (EPSG:5773), New
// Zealand points in EPSG:32661 (finished, with meaningless coordinates).
// Validation checks that a CRS draws maps, that its area of use meets the
// data, and that the data reprojects into it, and says why.
func TestExportCRSMustFitTheData(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		world := worldGrid(t, e, d.owner.User.ID)
		formats := map[string]any{"vector": "application/x-ogc-gpkg", "grid": "image/tiff;subtype=geotiff"}
		validate := func(crs string, item string, extent any) validationRecord {
			body := map[string]any{"crs": crs, "formats": formats, "items": []map[string]any{{"item": item}}}
			if extent != nil {
				body["extent"] = extent
			}
			return doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: d.owner.Key, Body: body}, http.StatusOK)
		}

		v := validate("EPSG:32661", d.points, nil)
		if v.IsValid || !hasReason(v.reasonsOf(t, d.points), "crs-outside-area") {
			t.Errorf("New Zealand points in UPS North: %+v", v)
		}
		v = validate("EPSG:5773", d.points, nil)
		if v.IsValid || !hasReason(v.InvalidReasons, "crs-invalid") {
			t.Errorf("a vertical CRS: %+v", v)
		}
		whole := map[string]any{"type": "Polygon", "coordinates": [][][2]float64{{{-180, -90}, {180, -90}, {180, 90}, {-180, 90}, {-180, -90}}}}
		v = validate("EPSG:3031", world, whole)
		if v.IsValid || !hasReason(v.reasonsOf(t, world), "crs-unprojectable") {
			t.Errorf("the whole world in Antarctic polar stereographic: %+v", v)
		}
		r := e.Do(t, req{Method: "POST", Path: "/exports/", Key: d.owner.Key, Body: map[string]any{
			"crs": "EPSG:3031", "formats": formats, "extent": whole, "items": []map[string]any{{"item": world}}}})
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "crs-unprojectable") {
			t.Errorf("creating it: %d %s, want 400 with the reason", r.Status, r.Body)
		}
		// What fits is still valid: the points in NZTM, the world's
		// southern ocean in EPSG:3031.
		if v := validate("EPSG:2193", d.points, nil); !v.IsValid {
			t.Errorf("the points in NZTM: %+v", v)
		}
		south := map[string]any{"type": "Polygon", "coordinates": [][][2]float64{{{-180, -89}, {180, -89}, {180, -65}, {-180, -65}, {-180, -89}}}}
		if v := validate("EPSG:3031", world, south); !v.IsValid {
			t.Errorf("the southern ocean in EPSG:3031: %+v", v)
		}
	})
}

// worldGrid publishes a coarse grid over the whole world and returns its
// item URL.
func worldGrid(t *testing.T, e *env, ownerID int) string {
	t.Helper()
	dir := t.TempDir()
	src, cog := filepath.Join(dir, "world.tif"), filepath.Join(dir, "world-cog.tif")
	ingesttest.Grid(t, src, 4326, 36, 18, [6]float64{-180, 10, 0, 90, 0, -10},
		[]ingesttest.GridBand{{Name: "v", Type: godal.Float32, Value: func(col, row int) float64 { return float64(col + row) }}})
	if out, err := exec.Command("gdal_translate", "-q", "-of", "COG", src, cog).CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v\n%s", err, out)
	}
	id := e.PublishGrid(t, ownerID, "World grid", servertest.Grid{COG: cog, Kind: layer.KindGrid, Cols: 36, Rows: 18, Extent: []float64{-180, -90, 180, 90}})
	return e.API + "/layers/" + itoa(id) + "/"
}
