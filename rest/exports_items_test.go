package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestExportSetsAndVersions: a set expands to its members; a member the
// caller may see but not download is an invalid item with its reason, and
// members the caller may not see are reported on the set's URL, never
// dropped silently. A draft version the caller may edit is exported from
// that version's data; someone else's draft is not found.
func TestExportSetsAndVersions(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		reader := e.NewUser(t, "Reader")
		owner := d.owner
		gpkg := map[string]any{"vector": "application/x-ogc-gpkg", "table": "application/x-ogc-gpkg"}

		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: owner.Key, Body: map[string]any{
			"title": "Harbour data", "items": []string{d.points, d.polys, d.table}}})
		expectStatus(t, r, http.StatusCreated)
		var s struct {
			URL         string `json:"url"`
			ThisVersion string `json:"this_version"`
		}
		r.JSON(t, &s)
		pr := e.Do(t, req{Method: "POST", Path: s.ThisVersion + "publish/", Key: owner.Key, Body: map[string]any{}})
		expectStatus(t, pr, http.StatusCreated)
		waitPublish(t, e, owner.Key, pr.Header.Get("Location"))

		// The owner exports the whole set: three datasets in one zip.
		set := map[string]any{"formats": gpkg, "items": []map[string]any{{"item": s.URL}}}
		v := doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: owner.Key, Body: set}, http.StatusOK)
		if !v.IsValid || len(v.Items) != 3 {
			t.Fatalf("the owner's set: %+v", v)
		}
		for i, want := range []string{d.points, d.polys, d.table} {
			if v.Items[i].Item != want || !v.Items[i].IsValid {
				t.Fatalf("item %d: %+v, want %s", i, v.Items[i], want)
			}
		}
		x := waitExport(t, e, owner.Key, createExport(t, e, owner.Key, set))
		if x.State != "complete" {
			t.Fatalf("set export %+v (error %s)", x, deref(x.Error))
		}
		dir, _ := download(t, e, owner.Key, x)
		for base, want := range map[string]int{"nz-sites": 300, "nz-parcels": 120, "codes": 5} {
			if n, _ := readBackLayer(t, findFile(t, dir, base, ".gpkg"), 0, 4326, false); n != want {
				t.Errorf("%s: %d features, want %d", base, n, want)
			}
		}

		// The reader may view but not download the parcels, and may not see
		// the table at all.
		for _, item := range []string{d.polys, d.table} {
			base := item[strings.Index(item, "/services/api/v1.x")+len("/services/api/v1.x"):]
			expectStatus(t, e.Do(t, req{Method: "DELETE", Path: base + "permissions/group.everyone/", Key: owner.Key}), http.StatusNoContent)
		}
		grantOn(t, e, owner.Key, d.polys[strings.Index(d.polys, "/layers/"):], reader, "view")
		v = doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: reader.Key, Body: set}, http.StatusOK)
		if v.IsValid || len(v.Items) != 3 {
			t.Fatalf("the reader's set: %+v", v)
		}
		if rs := v.reasonsOf(t, d.points); len(rs) != 0 {
			t.Errorf("points: %v", rs)
		}
		if rs := v.reasonsOf(t, d.polys); !hasReason(rs, "no-permission") {
			t.Errorf("parcels: %v", rs)
		}
		if rs := v.reasonsOf(t, s.URL); !hasReason(rs, "no-permission: 1 member(s) of the set are not visible to you") {
			t.Errorf("set: %v", rs)
		}
		for _, it := range v.Items {
			if it.Item == d.table {
				t.Errorf("the reader was told of the hidden table: %+v", it)
			}
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/exports/", Key: reader.Key, Body: set}), http.StatusBadRequest)

		// A draft of the points holding other data.
		src := upload(t, e, owner.Key, map[string][]byte{"few.geojson": []byte(`{"type":"FeatureCollection","features":[` +
			strings.Repeat(`{"type":"Feature","properties":{"name":"draft","n":1,"height":0.5},"geometry":{"type":"Point","coordinates":[174.78,-41.29]}},`, 6) +
			`{"type":"Feature","properties":{"name":"draft","n":1,"height":0.5},"geometry":{"type":"Point","coordinates":[174.79,-41.28]}}]}`)})
		if sc := waitScan(t, e, owner.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		few := datasources(t, e, owner.Key, src.ID)["few.geojson"]
		r = e.Do(t, req{Method: "POST", Path: d.points + "versions/", Key: owner.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var draft layerRecord
		r.JSON(t, &draft)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: draft.ThisVersion, Key: owner.Key, Body: map[string]any{
			"data": map[string]any{"datasources": []int{few.ID}}}}), http.StatusOK)
		if l := waitVersion(t, e, owner.Key, draft.ThisVersion); l.Version.Status != "ok" {
			t.Fatalf("draft import %+v", l)
		}
		if !strings.Contains(draft.ThisVersion, fmt.Sprintf("/layers/%d/versions/", d.pointIDs[0])) {
			t.Fatalf("draft %s", draft.ThisVersion)
		}
		body := map[string]any{"formats": gpkg, "items": []map[string]any{{"item": draft.ThisVersion}}}
		v = doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: owner.Key, Body: body}, http.StatusOK)
		if !v.IsValid || v.Items[0].FeatureCount != 7 {
			t.Fatalf("the owner's draft: %+v", v)
		}
		x = waitExport(t, e, owner.Key, createExport(t, e, owner.Key, body))
		if x.State != "complete" {
			t.Fatalf("draft export %+v (error %s)", x, deref(x.Error))
		}
		dir, _ = download(t, e, owner.Key, x)
		n, rows := readBackLayer(t, findFile(t, dir, "nz-sites", ".gpkg"), 0, 4326, false)
		if n != 7 || fieldText(rows[0]["name"]) != "draft" {
			t.Fatalf("the draft export holds %d features (%v), want the draft's 7", n, rows)
		}
		v = doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: reader.Key, Body: body}, http.StatusOK)
		if v.IsValid || !hasReason(v.reasonsOf(t, draft.ThisVersion), "not-found") {
			t.Fatalf("another user's draft: %+v", v)
		}
	})
}
