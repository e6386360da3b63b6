package rest_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/store"
)

// zipDir zips a folder tree, paths relative to it.
func zipDir(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Issue acceptance: a zip holding a Shapefile, a GeoPackage with two
// layers, GeoJSON, CSV with WKT, a GeoTIFF and a PDF, all made with GDAL,
// is uploaded and scanned; a layer from the Shapefile and a table from a
// CSV are imported and published and read back; a subscription client
// receives the scan, import and publish events in order.
func TestGDALUploadPipeline(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		sub := subscribeWS(t, e, pub.Key, "0")

		tree := t.TempDir()
		ingesttest.Upload(t, tree)
		src := upload(t, e, pub.Key, map[string][]byte{"nz.zip": zipDir(t, tree)})
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		towns, titles, dem, report := ds["vector/towns.shp"], ds["titles.csv"], ds["raster/dem.tif"], ds["docs/report.pdf"]
		if towns.DataType != "vector" || towns.GeometryType != "point" || towns.NumFeatures != 3 || towns.CRS == nil || *towns.CRS != "EPSG:2193" ||
			towns.Format != "application/x-zipped-shp" {
			t.Fatalf("towns %+v", towns)
		}
		// The GeoPackage's two layers share one upload path.
		var all []datasourceRecord
		e.Do(t, req{Path: fmt.Sprintf("/sources/%d/datasources/", src.ID), Key: pub.Key}).JSON(t, &all)
		gpkg := 0
		for _, d := range all {
			if d.UploadPath == "vector/transport.gpkg" {
				gpkg++
			}
		}
		if gpkg != 2 || titles.DataType != "table" || dem.DataType != "grid" || report.DataType != "document" ||
			ds["vector/lakes.geojson"].GeometryType != "multipolygon" || ds["vector/tracks.csv"].GeometryType != "linestring" {
			t.Fatalf("datasources %+v", ds)
		}

		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Towns", "data": map[string]any{"datasources": []int{towns.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		l = waitVersion(t, e, pub.Key, l.ThisVersion)
		if l.Version.Status != "ok" || l.Data.FeatureCount != 3 {
			t.Fatalf("towns imported %+v", l)
		}
		r = e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" {
			t.Fatalf("publish %+v", g)
		}
		r = e.Do(t, req{Path: l.URL, Key: pub.Key})
		r.JSON(t, &l)
		// The source CRS is kept; the extent is in lon/lat (EPSG:4326).
		crs, _ := l.Data.CRS.(map[string]any)
		ext := l.Data.Extent.Coordinates[0]
		if crs["id"] != "EPSG:2193" || ext[0][0] < 172 || ext[0][0] > 173 || ext[2][0] < 174 || ext[2][0] > 175 || ext[0][1] > -43 || ext[2][1] < -37 {
			t.Fatalf("published towns crs %v extent %v", l.Data.CRS, ext)
		}
		fields := []string{}
		for _, f := range l.Data.Fields {
			fields = append(fields, f.Name+":"+f.Type)
		}
		if !strings.Contains(strings.Join(fields, ","), "pop:integer") || !strings.Contains(strings.Join(fields, ","), "founded:date") {
			t.Fatalf("fields %v", fields)
		}
		// A date is stored as a date, not as midnight UTC (issue 24, 10).
		var attrs string
		q := store.Rebind("SELECT attrs FROM features WHERE version_id = (SELECT published_version_id FROM layers WHERE id = ?) ORDER BY fid LIMIT 1",
			e.Store.Dialect == dialect.Postgres)
		if err := e.Store.DB.QueryRow(q, l.ID).Scan(&attrs); err != nil || !strings.Contains(strings.ReplaceAll(attrs, " ", ""), `"founded":"1840-01-22"`) {
			t.Fatalf("stored attributes %s: %v", attrs, err)
		}

		r = e.Do(t, req{Method: "POST", Path: "/tables/", Key: pub.Key, Body: map[string]any{
			"name": "Titles", "data": map[string]any{"datasources": []int{titles.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var tbl layerRecord
		r.JSON(t, &tbl)
		if tbl = waitVersion(t, e, pub.Key, tbl.ThisVersion); tbl.Data.FeatureCount != 2 || tbl.Type != "table" {
			t.Fatalf("titles %+v", tbl)
		}

		var kinds []string
		for len(kinds) < 7 {
			kinds = append(kinds, sub.next().Kind)
		}
		want := "scan.started,scan.completed,import.started,import.completed,publish.completed,import.started,import.completed"
		if strings.Join(kinds, ",") != want {
			t.Fatalf("subscription received %v\nwant %s", kinds, want)
		}
	})
}
