package rest_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// keyedGPKG writes, with ogr2ogr, a GeoPackage whose primary-key column
// is parcel_id (the source's FIDs, 101 and 205).
func keyedGPKG(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "parcels.geojson")
	if err := os.WriteFile(in, []byte(`{"type":"FeatureCollection","features":[
{"type":"Feature","id":101,"properties":{"owner":"Crown"},"geometry":{"type":"Point","coordinates":[174.7,-41.2]}},
{"type":"Feature","id":205,"properties":{"owner":"Council"},"geometry":{"type":"Point","coordinates":[174.8,-41.3]}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "parcels.gpkg")
	cmd := exec.Command("ogr2ogr", "-f", "GPKG", out, in, "-nln", "parcels", "-preserve_fid", "-lco", "FID=parcel_id")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ogr2ogr: %v: %s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Issue 24.15: an import finds a layer's primary key: the GeoPackage's
// declared primary-key column (kept as an integer field), else a unique,
// non-null field named like an id; a repeated id is no key.
func TestImportDetectsPrimaryKey(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		src := upload(t, e, pub.Key, map[string][]byte{"parcels.gpkg": keyedGPKG(t)})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		var dsID int
		for _, d := range datasources(t, e, pub.Key, src.ID) {
			dsID = d.ID
		}
		l := doJSON[layerRecord](t, e, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Parcels", "data": map[string]any{"datasources": []int{dsID}}}}, http.StatusCreated)
		if l = waitVersion(t, e, pub.Key, l.ThisVersion); l.Version.Status != "ok" {
			t.Fatalf("import %+v", l)
		}
		got := doJSON[pkRecord](t, e, req{Path: l.ThisVersion, Key: pub.Key}, http.StatusOK)
		if !slices.Equal(got.Data.PrimaryKeyFields, []string{"parcel_id"}) {
			t.Errorf("GeoPackage key = %v", got.Data.PrimaryKeyFields)
		}
		if !slices.ContainsFunc(l.Data.Fields, func(f struct{ Name, Type string }) bool { return f.Name == "parcel_id" && f.Type == "integer" }) {
			t.Errorf("GeoPackage fields = %v", l.Data.Fields)
		}

		for _, tc := range []struct {
			name, file, body string
			want             []string
		}{
			{"unique CSV ID", "codes.csv", "ID,label\n1,Alpha\n2,Beta\n3,Gamma\n", []string{"ID"}},
			{"layer_id in GeoJSON", "roads.geojson", `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"roads_id":"r1","lanes":2},"geometry":{"type":"Point","coordinates":[174.7,-41.2]}},
{"type":"Feature","properties":{"roads_id":"r2","lanes":2},"geometry":{"type":"Point","coordinates":[174.8,-41.3]}}]}`, []string{"roads_id"}},
			{"repeated id in GeoJSON", "stops.geojson", `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"id":7,"name":"a"},"geometry":{"type":"Point","coordinates":[174.7,-41.2]}},
{"type":"Feature","properties":{"id":7,"name":"b"},"geometry":{"type":"Point","coordinates":[174.8,-41.3]}}]}`, nil},
			{"id with a gap in CSV", "gaps.csv", "gid,label\n1,Alpha\n,Beta\n", nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				draft := importedDraft(t, e, pub.Key, map[string]string{tc.file: tc.body}, tc.file, "Roads")
				got := doJSON[pkRecord](t, e, req{Path: draft, Key: pub.Key}, http.StatusOK)
				if !slices.Equal(got.Data.PrimaryKeyFields, tc.want) && !(len(tc.want) == 0 && len(got.Data.PrimaryKeyFields) == 0) {
					t.Errorf("%s: key = %v, want %v", tc.file, got.Data.PrimaryKeyFields, tc.want)
				}
			})
		}
	})
}
