package rest_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// shapefileOf writes a GeoJSON feature collection as a shapefile with
// ogr2ogr and returns its files by name (parcels.shp, .shx, .dbf, .prj).
// GDAL numbers its records from 0 in the collection's order: their FIDs.
func shapefileOf(t *testing.T, geojson string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.geojson")
	if err := os.WriteFile(in, []byte(geojson), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "shp")
	if msg, err := exec.Command("ogr2ogr", "-f", "ESRI Shapefile", out, in, "-nln", "parcels").CombinedOutput(); err != nil {
		t.Fatalf("ogr2ogr: %v: %s", err, msg)
	}
	files := map[string]string{}
	names, err := filepath.Glob(filepath.Join(out, "parcels.*"))
	if err != nil || len(names) < 3 {
		t.Fatalf("ogr2ogr wrote %v (%v)", names, err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(n)] = string(b)
	}
	return files
}

// Issue 26.1: with no key, a layer whose versions are each one shapefile
// has its features matched by FID (the record number) as a last resort,
// and every answer flags the match as unstable: a shapefile rewritten in
// another order renumbers its records.
func TestLayerDiffByShapefileFID(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		// No field is named like an id, so no key is detected.
		feature := func(name string, x float64) string {
			return fmt.Sprintf(`{"type":"Feature","properties":{"name":%q},"geometry":{"type":"Point","coordinates":[%g,-41.2]}}`, name, x)
		}
		v1 := parcelCollection(feature("a", 174.70), feature("b", 174.71), feature("c", 174.72))
		v2 := parcelCollection(feature("a", 174.70), feature("b2", 174.71), feature("c", 174.72), feature("d", 174.73))
		draft := importedDraft(t, e, pub.Key, shapefileOf(t, v1), "parcels.shp", "Parcels")
		if got := doJSON[pkRecord](t, e, req{Path: draft, Key: pub.Key}, 200); len(got.Data.PrimaryKeyFields) != 0 {
			t.Fatalf("a key was detected: %v", got.Data.PrimaryKeyFields)
		}
		publishLayerDraft(t, e, pub, draft)
		layerURL := strings.Split(draft, "versions/")[0]
		d2 := importedNextDraft(t, e, pub.Key, layerURL, shapefileOf(t, v2), "parcels.shp")
		publishLayerDraft(t, e, pub, d2)

		var page struct {
			Features []diffFeatureJSON `json:"features"`
			Diff     struct {
				MatchedBy   []string `json:"matched_by"`
				KeyUnstable bool     `json:"key_unstable"`
			} `json:"diff"`
		}
		getDiff(t, e, req{Path: layerURL + "diff/", Key: pub.Key}, &page)
		var ids []string
		for _, f := range page.Features {
			ids = append(ids, f.ID)
		}
		if !slices.Equal(page.Diff.MatchedBy, []string{"FID"}) || !page.Diff.KeyUnstable ||
			!slices.Equal(ids, []string{"U-::1", "U+::1", "I::3"}) {
			t.Fatalf("diff by FID: matched_by %v, key_unstable %v, features %v", page.Diff.MatchedBy, page.Diff.KeyUnstable, ids)
		}
		if page.Features[0].Properties["name"] != "b" || page.Features[1].Properties["name"] != "b2" {
			t.Fatalf("update of FID 1: %+v", page.Features[:2])
		}

		var counts struct {
			MatchedBy   []string       `json:"matched_by"`
			KeyUnstable bool           `json:"key_unstable"`
			Counts      map[string]int `json:"counts"`
		}
		doJSONInto(t, e, req{Path: layerURL + "diff/?" + url.Values{"format": {"counts"}}.Encode(), Key: pub.Key}, &counts)
		if !counts.KeyUnstable || fmt.Sprint(counts.Counts) != "map[deletes:0 inserts:1 updates:1]" {
			t.Fatalf("counts %+v", counts)
		}

		// GraphQL says the same, with the FID as the change's key.
		g := e.GraphQL(t, pub.Key, `query($id: ID!) { layerDiff(layerID: $id) { matchedBy keyUnstable changes { op key } } }`,
			map[string]any{"id": versionNumber(t, layerURL)})
		if len(g.Errors) > 0 {
			t.Fatalf("layerDiff: %+v", g.Errors)
		}
		var gd struct {
			LayerDiff struct {
				MatchedBy   []string
				KeyUnstable bool
				Changes     []struct {
					Op  string
					Key map[string]any
				}
			}
		}
		if err := json.Unmarshal(g.Data, &gd); err != nil {
			t.Fatal(err)
		}
		if d := gd.LayerDiff; !d.KeyUnstable || len(d.Changes) != 2 || d.Changes[0].Key["FID"] != float64(1) || d.Changes[1].Op != "insert" {
			t.Fatalf("GraphQL diff by FID: %+v", d)
		}

		// A key set on a draft wins over the FID.
		d3 := doJSON[pkRecord](t, e, req{Method: "POST", Path: layerURL + "versions/", Key: pub.Key, Body: map[string]any{}}, 201)
		doJSON[pkRecord](t, e, req{Method: "PATCH", Path: d3.ThisVersion, Key: pub.Key, Body: pkBody("name")}, 200)
		publishLayerDraft(t, e, pub, d3.ThisVersion)
		getDiff(t, e, req{Path: layerURL + "diff/", Key: pub.Key}, &page)
		if !slices.Equal(page.Diff.MatchedBy, []string{"name"}) || page.Diff.KeyUnstable {
			t.Fatalf("a key set on the draft: matched_by %v, key_unstable %v", page.Diff.MatchedBy, page.Diff.KeyUnstable)
		}
	})
}
