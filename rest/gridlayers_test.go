package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/server/servertest"
)

// tileValue is the value of a cell of the grid tiles: the tile's base plus
// column and 100 times row, so any cell names itself.
func tileValue(base float64) func(col, row int) float64 {
	return func(col, row int) float64 { return base + float64(col) + 100*float64(row) }
}

// nztmToLonLat converts an NZTM (EPSG:2193) point to longitude/latitude
// with GDAL.
func nztmToLonLat(t *testing.T, x, y float64) (float64, float64) {
	t.Helper()
	gdal.Init()
	src, err := godal.NewSpatialRefFromEPSG(2193)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := godal.NewSpatialRefFromEPSG(4326)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	trn, err := godal.NewTransform(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer trn.Close()
	xs, ys := []float64{x}, []float64{y}
	if err := trn.TransformEx(xs, ys, nil, nil); err != nil {
		t.Fatal(err)
	}
	return xs[0], ys[0]
}

// Grid layers through the whole pipeline: two adjacent GeoTIFF tiles are
// uploaded, scanned, imported as one mosaicked grid layer, published and
// queried at a point in each tile; layers keep their kind of data; grids
// that cannot be mosaicked fail the import with a clear error.
func TestGridLayerPipeline(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		tree := t.TempDir()
		nd := -1.0
		tile := func(name string, x0, base float64, bands int) {
			bs := []ingesttest.GridBand{{Name: "level", Type: godal.Float32, NoData: &nd, Value: tileValue(base)}}
			for i := 1; i < bands; i++ {
				bs = append(bs, ingesttest.GridBand{Name: fmt.Sprintf("extra%d", i), Value: tileValue(0)})
			}
			ingesttest.Grid(t, filepath.Join(tree, name), 2193, 20, 10, [6]float64{x0, 100, 0, 5428000, 0, -100}, bs)
		}
		tile("west.tif", 1748000, 1000, 1)
		tile("east.tif", 1750000, 2000, 1)
		tile("odd/twoband.tif", 1752000, 3000, 2)
		ingesttest.Shapefile(t, tree, "towns")
		src := upload(t, e, pub.Key, map[string][]byte{"grids.zip": zipDir(t, tree)})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		west, east, odd, towns := ds["west.tif"], ds["east.tif"], ds["odd/twoband.tif"], ds["towns.shp"]
		if west.DataType != "grid" || east.DataType != "grid" || towns.DataType != "vector" {
			t.Fatalf("datasources %+v", ds)
		}

		// Grids and vectors do not mix in one layer: 400, nothing made.
		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Mixed", "data": map[string]any{"datasources": []int{west.ID, towns.ID}}}})
		expectBody(t, r, http.StatusBadRequest, "share one data type")
		if n := e.Store.Client.Layer.Query().CountX(t.Context()); n != 0 {
			t.Fatalf("%d layers after a refused create", n)
		}

		r = e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Levels", "data": map[string]any{"datasources": []int{west.ID, east.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l gridRecord
		r.JSON(t, &l)
		if l.Kind != "grid" || l.Type != "layer" {
			t.Fatalf("created %s", r.Body)
		}
		waitVersion(t, e, pub.Key, l.ThisVersion)
		r = e.Do(t, req{Path: l.ThisVersion, Key: pub.Key})
		r.JSON(t, &l)
		// 40×10 cells of 100 m: one 256×256 tile; the extent near Wellington.
		if l.Version.Status != "ok" || l.Data.Width != 40 || l.Data.Height != 10 || l.Data.RasterResolution != 100 ||
			l.Data.FeatureCount != 1 || len(l.Data.Bands) != 1 || l.Data.Bands[0].Name != "level" ||
			l.Data.Bands[0].DataType != "Float32" || l.Data.Bands[0].NoData == nil || *l.Data.Bands[0].NoData != -1 {
			t.Fatalf("imported %s", r.Body)
		}
		crs, _ := l.Data.CRS.(map[string]any)
		if crs["id"] != "EPSG:2193" {
			t.Fatalf("crs %v", l.Data.CRS)
		}

		// A vector datasource cannot replace a grid layer's: 400, unchanged.
		r = e.Do(t, req{Method: "PUT", Path: l.ThisVersion, Key: pub.Key, Body: map[string]any{
			"data": map[string]any{"datasources": []int{towns.ID}}}})
		expectBody(t, r, http.StatusBadRequest, "make a vector layer")

		r = e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" {
			t.Fatalf("publish %+v", g)
		}

		// GraphQL shows the same layer.
		gr := e.GraphQL(t, pub.Key, `query($id: ID!) { layer(id: $id) { kind publishedVersion { rasterWidth bands { index name dataType nodata colorInterp } } } }`,
			map[string]any{"id": l.ID})
		if len(gr.Errors) > 0 || !strings.Contains(string(gr.Data), `"kind":"grid"`) || !strings.Contains(string(gr.Data), `"bands":[{"index":1,"name":"level","dataType":"Float32","nodata":-1,"colorInterp":"gray"}]`) {
			t.Fatalf("graphql %s %v", gr.Data, gr.Errors)
		}

		// The raster query reads each tile of the mosaic.
		for _, c := range []struct {
			x, y float64
			want string
		}{
			{1748000 + 5.5*100, 5428000 - 3.5*100, `"value":1305`},  // west, col 5 row 3
			{1750000 + 12.5*100, 5428000 - 8.5*100, `"value":2812`}, // east, col 12 row 8
		} {
			lon, lat := nztmToLonLat(t, c.x, c.y)
			q := url.Values{"key": {pub.Key}, "layer": {fmt.Sprint(l.ID)}, "x": {fmt.Sprint(lon)}, "y": {fmt.Sprint(lat)}}
			r := e.Do(t, req{Path: e.HTTP.URL + "/services/query/v1/raster.json?" + q.Encode()})
			if r.Status != http.StatusOK || !strings.Contains(string(r.Body), c.want) {
				t.Fatalf("raster query at %v,%v: %d %s, want %s", lon, lat, r.Status, r.Body, c.want)
			}
		}

		// Grids with different bands cannot make one layer: the import
		// fails and says why.
		r = e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Odd", "data": map[string]any{"datasources": []int{west.ID, odd.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var bad gridRecord
		r.JSON(t, &bad)
		failed := waitVersion(t, e, pub.Key, bad.ThisVersion)
		if failed.Version.Status != "failed" || failed.Version.Error == nil || !strings.Contains(*failed.Version.Error, "must share their bands") {
			t.Fatalf("mismatched grids imported as %+v", failed.Version)
		}

		// Deleting the layer deletes its grid file.
		key := grids.Key(l.Version.ID)
		if ok, err := e.Server.Resolver.Blobs.Exists(t.Context(), key); err != nil || !ok {
			t.Fatalf("grid file %s before delete: %v %v", key, ok, err)
		}
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/layers/%d/", l.ID), Key: pub.Key}), http.StatusNoContent)
		if ok, err := e.Server.Resolver.Blobs.Exists(t.Context(), key); err != nil || ok {
			t.Fatalf("grid file %s after delete: %v %v", key, ok, err)
		}
	})
}

// expectBody checks the status and that the body mentions want (field
// errors come as {"field": ["message"]}).
func expectBody(t *testing.T, r *servertest.Response, status int, want string) {
	t.Helper()
	expectStatus(t, r, status)
	if !strings.Contains(string(r.Body), want) {
		t.Fatalf("body %s, want it to mention %q", r.Body, want)
	}
}

// gridRecord is a grid layer as REST renders it.
type gridRecord struct {
	ID          int    `json:"id"`
	Type        string `json:"type"`
	Kind        string `json:"kind"`
	ThisVersion string `json:"this_version"`
	Version     struct {
		ID     int    `json:"id"`
		Status string `json:"status"`
	} `json:"version"`
	Data struct {
		CRS              any     `json:"crs"`
		FeatureCount     int64   `json:"feature_count"`
		RasterResolution float64 `json:"raster_resolution"`
		Width            int     `json:"width"`
		Height           int     `json:"height"`
		Bands            []struct {
			Name     string   `json:"name"`
			DataType string   `json:"data_type"`
			NoData   *float64 `json:"nodata"`
		} `json:"bands"`
	} `json:"data"`
}
