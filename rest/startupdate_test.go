package rest_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// POST /layers/{id}/versions/import/ (the Python client's start_update):
// a new draft from the layer's datasources, its import started, answered
// 202 with the layer as of the draft; tables the same under /tables/.
func TestStartUpdate(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		files := map[string]string{"roads.geojson": fixtureFiles["roads.geojson"], "codes.csv": "code,label\nA,Alpha\nB,Beta\n"}
		l, _ := publishedFrom(t, e, pub.Key, files, "roads.geojson", "Roads")
		path := l.URL + "versions/import/"

		authMatrix(t, e, req{Method: "POST", Path: path, Body: map[string]any{}}, "layers:write", reader)
		// A reader sees the published layer but may not change it.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: path, Key: reader.Key, Body: map[string]any{}}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/layers/99999/versions/import/", Key: pub.Key, Body: map[string]any{}}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: path, Key: pub.Key, Body: "not json"}), http.StatusBadRequest)

		r := e.Do(t, req{Method: "POST", Path: path, Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusAccepted)
		var d layerRecord
		r.JSON(t, &d)
		if d.Version.State != "draft" || d.ThisVersion == *l.PublishedVersion || d.LatestVersion != d.ThisVersion || d.Name != "Roads" {
			t.Fatalf("start_update answered %s", r.Body)
		}
		if d = waitVersion(t, e, pub.Key, d.ThisVersion); d.Version.Status != "ok" || d.Data.FeatureCount != 2 || d.Data.GeometryType != "linestring" {
			t.Fatalf("re-import %+v", d)
		}
		// A second call while the draft exists: 409, nothing written.
		before := e.Store.Client.LayerVersion.Query().CountX(t.Context())
		expectStatus(t, e.Do(t, req{Method: "POST", Path: path, Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)
		if e.Store.Client.LayerVersion.Query().CountX(t.Context()) != before {
			t.Fatal("a refused start_update wrote a version")
		}
		// The published version is untouched.
		if got := doJSON[layerRecord](t, e, req{Path: l.URL, Key: reader.Key}, http.StatusOK); got.ThisVersion != *l.PublishedVersion {
			t.Fatalf("published changed: %+v", got)
		}

		// Tables too, and a datasource the last scan did not find: 400.
		tb, _ := publishedFrom(t, e, pub.Key, files, "codes.csv", "Codes")
		if tb.Type != "table" {
			t.Fatalf("table %+v", tb)
		}
		var ids []int
		for _, v := range e.Store.Client.LayerVersion.Query().AllX(t.Context()) {
			if v.LayerID == tb.ID {
				ids = v.DatasourceIds
			}
		}
		e.Store.Client.Datasource.UpdateOneID(ids[0]).SetMissing(true).ExecX(t.Context())
		expectDetail(t, e.Do(t, req{Method: "POST", Path: tb.URL + "versions/import/", Key: pub.Key, Body: map[string]any{}}),
			http.StatusBadRequest, "No valid datasources to import")
		e.Store.Client.Datasource.UpdateOneID(ids[0]).SetMissing(false).ExecX(t.Context())
		r = e.Do(t, req{Method: "POST", Path: tb.URL + "versions/import/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusAccepted)
		r.JSON(t, &d)
		if d = waitVersion(t, e, pub.Key, d.ThisVersion); d.Type != "table" || d.Version.Status != "ok" || d.Data.FeatureCount != 2 {
			t.Fatalf("table re-import %+v", d)
		}

		// GraphQL: the same mutation, CONFLICT now that a draft exists.
		g := e.GraphQL(t, pub.Key, `mutation($l: ID!) { updateLayerFromDatasources(layerID: $l) { id } }`, map[string]any{"l": tb.ID})
		if len(g.Errors) == 0 || g.Errors[0].Code() != "CONFLICT" {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}
		e.Do(t, req{Method: "DELETE", Path: d.ThisVersion, Key: pub.Key})
		g = e.GraphQL(t, pub.Key, `mutation($l: ID!) { updateLayerFromDatasources(layerID: $l) { state status } }`, map[string]any{"l": tb.ID})
		var gd struct {
			UpdateLayerFromDatasources struct{ State, Status string }
		}
		json.Unmarshal(g.Data, &gd)
		if len(g.Errors) > 0 || gd.UpdateLayerFromDatasources.State != "draft" {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}
	})
}
