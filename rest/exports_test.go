package rest_test

import (
	"database/sql"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/store/storetest"
)

// postgisCounts counts, with PostGIS on a scratch database, the geometries
// of each list that intersect the crop area (ST_Intersects): the figures
// an export's cropped layers must hold.
func postgisCounts(t *testing.T, lists map[string][]string) map[string]int {
	t.Helper()
	db, err := sql.Open("pgx", storetest.ScratchPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS postgis"); err != nil {
		t.Fatalf("PostGIS is needed: %v", err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE g (list text, geom geometry(Geometry, 4326))"); err != nil {
		t.Fatal(err)
	}
	for name, wkts := range lists {
		for _, w := range wkts {
			if _, err := db.ExecContext(ctx, "INSERT INTO g VALUES ($1, ST_GeomFromText($2, 4326))", name, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := map[string]int{}
	for name := range lists {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM g WHERE list = $1 AND ST_Intersects(geom, ST_GeomFromText($2, 4326))",
			name, cropWKT).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[name] = n
	}
	return out
}

// readBackLayer opens the dataset at path with GDAL and checks it: the
// CRS it declares (epsg, 0 when the format stores none), every geometry
// inside the crop area (its coordinates in dataEPSG), and returns the
// feature count and each feature's fields.
func readBackLayer(t *testing.T, path string, epsg, dataEPSG int, geometry bool) (int, []map[string]godal.Field) {
	t.Helper()
	ds, err := godal.Open(path, godal.VectorOnly())
	if err != nil {
		t.Fatalf("GDAL cannot open %s: %v", path, err)
	}
	defer ds.Close()
	crop, err := godal.NewGeometryFromWKT(cropWKT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer crop.Close()
	area, err := crop.Buffer(1e-6, 8) // absorbs the round trip through the target CRS
	if err != nil {
		t.Fatal(err)
	}
	defer area.Close()
	wgs, _ := godal.NewSpatialRefFromEPSG(4326)
	defer wgs.Close()
	data, err := godal.NewSpatialRefFromEPSG(dataEPSG)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	n := 0
	var rows []map[string]godal.Field
	for _, l := range ds.Layers() {
		if epsg != 0 {
			srs := l.SpatialRef()
			if srs == nil {
				t.Fatalf("%s: no CRS", path)
			}
			if code := srs.AuthorityCode(""); code != strconv.Itoa(epsg) {
				want, _ := godal.NewSpatialRefFromEPSG(epsg)
				if !srs.IsSame(want) {
					wkt, _ := srs.WKT()
					t.Errorf("%s: CRS %s, want EPSG:%d: %.200s", path, code, epsg, wkt)
				}
				want.Close()
			}
		}
		for f := l.NextFeature(); f != nil; f = l.NextFeature() {
			n++
			rows = append(rows, f.Fields())
			if g := f.Geometry(); geometry && g != nil && !g.Empty() {
				g.SetSpatialRef(data)
				if dataEPSG != 4326 {
					if err := g.Reproject(wgs); err != nil {
						t.Fatal(err)
					}
				}
				if !area.Contains(g) {
					wkt, _ := g.WKT()
					t.Errorf("%s: a geometry lies outside the crop area: %.200s", path, wkt)
				}
			}
			f.Close()
		}
	}
	return n, rows
}

// findFile finds the file of base name (a part's name) with extension ext
// anywhere under dir.
func findFile(t *testing.T, dir, base, ext string) string {
	t.Helper()
	var found string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), base) && strings.HasSuffix(d.Name(), ext) && found == "" {
			found = p
		}
		return nil
	})
	if found == "" {
		var all []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error { all = append(all, p); return nil })
		t.Fatalf("no %s*%s in the export: %v", base, ext, all)
	}
	return found
}

// TestExportCroppedReprojected is issue 14's acceptance: two layers and a
// table, cropped by a polygon and reprojected to EPSG:2193, in
// GeoPackage, Shapefile, FlatGeobuf, CSV and KML; each zip downloaded,
// unpacked and read back with GDAL: the CRS, feature counts equal to
// PostGIS's ST_Intersects counts, every geometry inside the crop area,
// attribute values and types.
func TestExportCroppedReprojected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		var want map[string]int
		t.Run("PostGISCounts", func(t *testing.T) {
			want = postgisCounts(t, map[string][]string{"points": d.pointWKT, "polys": d.polyWKT})
			if want["points"] == 0 || want["points"] == len(d.pointWKT) || want["polys"] == 0 || want["polys"] == len(d.polyWKT) {
				t.Fatalf("the crop area should cut the data: %v", want)
			}
		})
		items := []map[string]any{{"item": d.points}, {"item": d.polys, "color": "#003399"}, {"item": d.table}}
		formats := []struct {
			name, vector, table, ext, tableExt string
			epsg                               int // declared CRS; 0 none
			dataEPSG                           int
			typed                              bool
		}{
			{"GeoPackage", "application/x-ogc-gpkg", "application/x-ogc-gpkg", ".gpkg", ".gpkg", 2193, 2193, true},
			{"Shapefile", "application/x-zipped-shp", "application/x-zipped-shp", ".shp", ".dbf", 2193, 2193, true},
			{"FlatGeobuf", "application/flatgeobuf", "text/csv", ".fgb", ".csv", 2193, 2193, true},
			{"CSV", "text/csv", "text/csv", ".csv", ".csv", 0, 2193, false},
			{"KML", "application/vnd.google-earth.kml+xml", "text/csv", ".kml", ".csv", 4326, 4326, false},
		}
		for _, f := range formats {
			t.Run(f.name, func(t *testing.T) {
				body := map[string]any{"name": "NZ test " + f.name, "crs": "EPSG:2193", "items": items,
					"formats": map[string]any{"vector": f.vector, "table": f.table}, "extent": cropGeoJSON}
				v := doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: d.owner.Key, Body: body}, http.StatusOK)
				if !v.IsValid || len(v.Items) != 3 || v.SizeEstimateZipped <= 0 {
					t.Fatalf("validation %+v", v)
				}
				for _, it := range v.Items {
					if it.Price != "0.00" || !it.IsValid || it.FeatureCount <= 0 {
						t.Errorf("item %+v", it)
					}
				}
				x := waitExport(t, e, d.owner.Key, createExport(t, e, d.owner.Key, body))
				wantName := "geopub-nz-test-" + strings.ToLower(f.name)
				if x.State != "complete" || x.DownloadURL == nil || x.Name != wantName || x.CreatedVia != "API" ||
					x.Progress == nil || *x.Progress != 1 || x.Delivery["method"] != "download" || x.CRS == nil || *x.CRS != "EPSG:2193" {
					t.Fatalf("export %+v (error %v)", x, x.Error)
				}
				if len(x.Items) != 3 || x.Items[1]["color"] != "#003399" {
					t.Errorf("items %v: per-item options kept", x.Items)
				}
				dir, _ := download(t, e, d.owner.Key, x)
				for _, part := range []struct {
					base, key string
				}{{"nz-sites", "points"}, {"nz-parcels", "polys"}} {
					n, rows := readBackLayer(t, findFile(t, dir, part.base, f.ext), f.epsg, f.dataEPSG, true)
					if want != nil && n != want[part.key] {
						t.Errorf("%s: %d features, PostGIS counts %d intersecting the crop area", part.base, n, want[part.key])
					}
					if part.key == "points" {
						checkSiteAttributes(t, rows, f.typed)
					}
				}
				n, rows := readBackLayer(t, findFile(t, dir, "codes", f.tableExt), 0, 4326, false)
				if n != 5 {
					t.Errorf("the table has %d rows, want 5", n)
				}
				if len(rows) > 0 && fieldText(rows[0]["label"]) != "Alpha" {
					t.Errorf("table row %v", rows[0])
				}
			})
		}
	})
}

// checkSiteAttributes checks the points' attributes: name "site n" for
// each n, and with typed formats integer n and real height.
func checkSiteAttributes(t *testing.T, rows []map[string]godal.Field, typed bool) {
	t.Helper()
	if len(rows) == 0 {
		t.Fatal("no points")
	}
	for _, r := range rows {
		n, ok := r["n"]
		name, named := r["name"]
		if !named {
			name = r["Name"] // KML keeps a name field as the placemark's name
		}
		if !ok {
			t.Fatalf("no field n among %v", r)
		}
		k, err := strconv.Atoi(strings.TrimSpace(fieldText(n)))
		if err != nil || fieldText(name) != fmt.Sprintf("site %d", k) {
			t.Fatalf("n %q name %q in %v", fieldText(n), fieldText(name), r)
		}
		if h := fieldText(r["height"]); strings.TrimSpace(h) != strconv.FormatFloat(float64(k)/4, 'f', -1, 64) {
			if v, err := strconv.ParseFloat(strings.TrimSpace(h), 64); err != nil || v != float64(k)/4 {
				t.Fatalf("height %q for n %d", h, k)
			}
		}
		if typed {
			if ty := n.Type(); ty != godal.FTInt && ty != godal.FTInt64 {
				t.Fatalf("n is %v, want an integer", ty)
			}
			if ty := r["height"].Type(); ty != godal.FTReal {
				t.Fatalf("height is %v, want a real", ty)
			}
			if ty := name.Type(); ty != godal.FTString {
				t.Fatalf("name is %v, want a string", ty)
			}
		}
	}
}

// fieldText is a field's value as text, whatever its type.
func fieldText(f godal.Field) string {
	if !f.IsSet() {
		return ""
	}
	switch f.Type() {
	case godal.FTInt, godal.FTInt64:
		return strconv.FormatInt(f.Int(), 10)
	case godal.FTReal:
		return strconv.FormatFloat(f.Float(), 'f', -1, 64)
	}
	return f.String()
}
