package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// cropAreas are the features of a crop layer: the crop pentagon (cropWKT)
// and a polygon far from the data.
const cropAreas = `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"area":"Elsewhere"},"geometry":{"type":"Polygon","coordinates":[[[170,-46],[170.1,-46],[170.1,-45.9],[170,-46]]]}},
{"type":"Feature","properties":{"area":"Harbour"},"geometry":{"type":"Polygon","coordinates":[[[174.72,-41.33],[174.85,-41.34],[174.88,-41.27],[174.80,-41.22],[174.73,-41.25],[174.72,-41.33]]]}}
]}`

// publishCropFeatures publishes cropAreas as a crop layer (made by a site
// administrator) and returns its features' URLs by name.
func publishCropFeatures(t *testing.T, e *env, owner *user) map[string]string {
	t.Helper()
	admin := e.NewUser(t, "CropAdmin", servertest.SiteAdmin)
	src := upload(t, e, owner.Key, map[string][]byte{"areas.geojson": []byte(cropAreas)})
	if sc := waitScan(t, e, owner.Key, src.ID); sc.Status != "completed" {
		t.Fatalf("scan %+v", sc)
	}
	ds := datasources(t, e, owner.Key, src.ID)
	lid := publishLayerFrom(t, e, owner, "Crop areas", ds["areas.geojson"].ID)
	c := doJSON[cropLayerRecord](t, e, req{Method: "POST", Path: "/exports/croplayers/", Key: admin.Key, Body: map[string]any{
		"name": "Areas", "layer": fmt.Sprintf("%s/layers/%d/", e.API, lid), "name_field": "area"}}, http.StatusCreated)
	out := map[string]string{}
	for _, f := range doJSON[[]cropFeatureRecord](t, e, req{Path: c.Features, Key: owner.Key}, http.StatusOK) {
		out[f.Name] = f.URL
	}
	if out["Harbour"] == "" || out["Elsewhere"] == "" {
		t.Fatalf("crop features %v", out)
	}
	return out
}

// TestExportCropFeature: an export whose extent is a crop feature's URL
// reads that URL back as its extent and is clipped to that feature: the
// counts are PostGIS's ST_Intersects counts, every geometry inside it. A
// crop feature away from the data makes the items outside-extent; a URL
// naming no crop feature is a top-level extent-invalid.
func TestExportCropFeature(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		feats := publishCropFeatures(t, e, d.owner)
		var want map[string]int
		t.Run("PostGISCounts", func(t *testing.T) {
			want = postgisCounts(t, map[string][]string{"points": d.pointWKT, "polys": d.polyWKT})
		})
		gpkg := map[string]any{"vector": "application/x-ogc-gpkg"}
		items := []map[string]any{{"item": d.points}, {"item": d.polys}}

		v := doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: d.owner.Key, Body: map[string]any{
			"formats": gpkg, "items": items, "extent": feats["Elsewhere"]}}, http.StatusOK)
		if v.IsValid || !hasReason(v.reasonsOf(t, d.points), "outside-extent") || !hasReason(v.reasonsOf(t, d.polys), "outside-extent") {
			t.Errorf("a crop feature away from the data: %+v", v)
		}
		bad := e.API + "/exports/croplayers/999/cropfeatures/1/"
		v = doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: d.owner.Key, Body: map[string]any{
			"formats": gpkg, "items": items, "extent": bad}}, http.StatusOK)
		if v.IsValid || !hasReason(v.InvalidReasons, "extent-invalid") {
			t.Errorf("no such crop feature: %+v", v)
		}

		body := map[string]any{"name": "harbour", "crs": "EPSG:2193", "formats": gpkg, "items": items, "extent": feats["Harbour"]}
		v = doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: d.owner.Key, Body: body}, http.StatusOK)
		if !v.IsValid {
			t.Fatalf("validation %+v", v)
		}
		x := waitExport(t, e, d.owner.Key, createExport(t, e, d.owner.Key, body))
		if x.State != "complete" {
			t.Fatalf("export %+v (error %v)", x, x.Error)
		}
		if s, ok := x.Extent.(string); !ok || s != feats["Harbour"] {
			t.Errorf("extent %#v, want the crop feature's URL %s", x.Extent, feats["Harbour"])
		}
		dir, _ := download(t, e, d.owner.Key, x)
		for _, part := range []struct{ base, key string }{{"nz-sites", "points"}, {"nz-parcels", "polys"}} {
			n, _ := readBackLayer(t, findFile(t, dir, part.base, ".gpkg"), 2193, 2193, true)
			if n == 0 || (want != nil && n != want[part.key]) {
				t.Errorf("%s: %d features, PostGIS counts %d intersecting the crop feature", part.base, n, want[part.key])
			}
		}
	})
}
