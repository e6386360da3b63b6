package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// sourceLeakQuery is the query that served a published layer's private
// source (its owner's e-mail, its scan logs and every file in it) to
// anyone who could see the layer.
const sourceLeakQuery = `query($id: ID!) { layer(id: $id) { publishedVersion { datasources {
	id title format path
	source { id title urlRemote user { email } scans { edges { node { id log } } } datasources { edges { node { id path } } } }
} } } }`

// publishedLayerFromSource uploads a source of two files, makes a layer of
// one and publishes it; it returns the source id and the layer id.
func publishedLayerFromSource(t *testing.T, e *env, owner *user) (srcID, layerID int) {
	t.Helper()
	src := upload(t, e, owner.Key, map[string][]byte{
		"roads.geojson":    []byte(fixtureFiles["roads.geojson"]),
		"secret-plans.csv": []byte("code,label\nA,Alpha\n"),
	})
	if sc := waitScan(t, e, owner.Key, src.ID); sc.Status != "completed" {
		t.Fatalf("scan %+v", sc)
	}
	ds := datasources(t, e, owner.Key, src.ID)
	return src.ID, publishLayerFrom(t, e, owner, "Roads", ds["roads.geojson"].ID)
}

// publishLayerFrom creates a layer from one datasource through the API,
// waits for its import and publishes it; it returns the layer's id.
func publishLayerFrom(t *testing.T, e *env, owner *user, name string, datasourceID int) int {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: owner.Key, Body: map[string]any{
		"name": name, "data": map[string]any{"datasources": []int{datasourceID}}}})
	expectStatus(t, r, http.StatusCreated)
	var l layerRecord
	r.JSON(t, &l)
	if l = waitVersion(t, e, owner.Key, l.ThisVersion); l.Version.Status != "ok" {
		t.Fatalf("import %+v", l)
	}
	r = e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: owner.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	waitPublish(t, e, owner.Key, r.Header.Get("Location"))
	return l.ID
}

// grantOn gives u a level on a dataset or source through REST.
func grantOn(t *testing.T, e *env, adminKey, base string, u *user, level string) {
	t.Helper()
	expectStatus(t, e.Do(t, req{Method: "POST", Path: base + "permissions/", Key: adminKey,
		Body: map[string]any{"user": u.User.ID, "permission": level}}), http.StatusCreated)
}

// TestPublishedLayerDoesNotLeakItsSource: those who see a published layer
// see the title and format of the datasources it was made from, never the
// source (its owner, URL, scans and logs, other files).
func TestPublishedLayerDoesNotLeakItsSource(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		outsider := e.NewUser(t, "Outsider")
		viewer := e.NewUser(t, "Viewer")
		_, layerID := publishedLayerFromSource(t, e, owner)
		grantOn(t, e, owner.Key, fmt.Sprintf("/layers/%d/", layerID), viewer, "view")

		for name, key := range map[string]string{"anonymous": "", "outsider": outsider.Key, "viewer": viewer.Key} {
			g := e.GraphQL(t, key, sourceLeakQuery, map[string]any{"id": layerID})
			body := string(g.Data)
			for _, leak := range []string{owner.User.Email, "secret-plans", "roads.geojson", `"log"`, `"scans"`, "Wellington data"} {
				if strings.Contains(body, leak) {
					t.Errorf("%s: the answer holds %q: %s", name, leak, body)
				}
			}
			if len(g.Errors) > 0 {
				t.Errorf("%s: errors %v", name, g.Errors)
			}
			if !strings.Contains(body, `"source":null`) || !strings.Contains(body, `"format":`) {
				t.Errorf("%s: want the datasource's title and format and a null source: %s", name, body)
			}
		}
		// The owner still sees everything.
		g := e.GraphQL(t, owner.Key, sourceLeakQuery, map[string]any{"id": layerID})
		if body := string(g.Data); !strings.Contains(body, owner.User.Email) || !strings.Contains(body, "secret-plans.csv") || !strings.Contains(body, `"log"`) {
			t.Errorf("owner: %s %v", body, g.Errors)
		}
	})
}

// TestDeleteSourceNeedsAdmin: editing a layer made from a source gives no
// right on the source; deleting a source needs admin on it.
func TestDeleteSourceNeedsAdmin(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		editor := e.NewUser(t, "Editor")
		srcAdmin := e.NewUser(t, "SourceAdmin")
		srcID, layerID := publishedLayerFromSource(t, e, owner)
		grantOn(t, e, owner.Key, fmt.Sprintf("/layers/%d/", layerID), editor, "edit")
		del := `mutation($id: ID!) { deleteSource(id: $id) }`
		vars := map[string]any{"id": srcID}
		srcURL := fmt.Sprintf("/sources/%d/", srcID)

		// The layer's editor does not see the source.
		if got := gqlStatus(e.GraphQL(t, editor.Key, del, vars).Errors); got != http.StatusNotFound {
			t.Fatalf("layer editor deleteSource: %d, want 404", got)
		}
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: srcURL, Key: editor.Key}), http.StatusNotFound)
		// With edit on the source they see it, and may not delete it.
		grantOn(t, e, owner.Key, srcURL, editor, "edit")
		if got := gqlStatus(e.GraphQL(t, editor.Key, del, vars).Errors); got != http.StatusForbidden {
			t.Fatalf("source editor deleteSource: %d, want 403", got)
		}
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: srcURL, Key: editor.Key}), http.StatusForbidden)
		// An administrator of the source may.
		grantOn(t, e, owner.Key, srcURL, srcAdmin, "admin")
		g := e.GraphQL(t, srcAdmin.Key, del, vars)
		if len(g.Errors) > 0 || string(g.Data) != `{"deleteSource":true}` {
			t.Fatalf("source admin deleteSource: %s %v", g.Data, g.Errors)
		}
		expectStatus(t, e.Do(t, req{Path: srcURL, Key: owner.Key}), http.StatusNotFound)
	})
}

// TestSourcePermissionEndpoints: /sources/{id}/permissions/ works as the
// dataset permission lists do.
func TestSourcePermissionEndpoints(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		viewer := e.NewUser(t, "Viewer")
		outsider := e.NewUser(t, "Outsider")
		src := upload(t, e, owner.Key, map[string][]byte{"roads.geojson": []byte(fixtureFiles["roads.geojson"])})
		base := fmt.Sprintf("/sources/%d/permissions/", src.ID)

		// A new source is its creator's alone.
		list := doJSON[[]map[string]any](t, e, req{Path: base, Key: owner.Key}, http.StatusOK)
		if len(list) != 1 || list[0]["id"] != fmt.Sprintf("user.%d", owner.User.ID) || list[0]["permission"] != "admin" {
			t.Fatalf("initial permissions %v", list)
		}
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sources/%d/", src.ID), Key: outsider.Key}), http.StatusNotFound)

		// Add, read, change and remove one grant.
		p := doJSON[map[string]any](t, e, req{Method: "POST", Path: base, Key: owner.Key,
			Body: map[string]any{"user": viewer.User.ID, "permission": "view"}}, http.StatusCreated)
		key := fmt.Sprintf("user.%d", viewer.User.ID)
		if p["id"] != key || p["permission"] != "view" || !strings.HasSuffix(p["url"].(string), base+key+"/") {
			t.Fatalf("created %v", p)
		}
		// A viewer sees the source without its scans, and may not manage it.
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sources/%d/", src.ID), Key: viewer.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sources/%d/datasources/", src.ID), Key: viewer.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: viewer.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Path: base, Key: viewer.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Path: base, Key: outsider.Key}), http.StatusNotFound)

		got := doJSON[map[string]any](t, e, req{Path: base + key + "/", Key: owner.Key}, http.StatusOK)
		if got["permission"] != "view" {
			t.Fatalf("get %v", got)
		}
		got = doJSON[map[string]any](t, e, req{Method: "PUT", Path: base + key + "/", Key: owner.Key,
			Body: map[string]any{"permission": "edit"}}, http.StatusOK)
		if got["permission"] != "edit" {
			t.Fatalf("put %v", got)
		}
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: viewer.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: base + key + "/", Key: owner.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: base + key + "/", Key: owner.Key}), http.StatusNotFound)

		// Replace the whole list.
		all := doJSON[[]map[string]any](t, e, req{Method: "PUT", Path: base, Key: owner.Key, Body: []map[string]any{
			{"user": owner.User.ID, "permission": "admin"}, {"group": "everyone", "permission": "view"}}}, http.StatusOK)
		if len(all) != 2 || all[0]["id"] != "group.everyone" {
			t.Fatalf("replaced %v", all)
		}
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sources/%d/", src.ID), Key: outsider.Key}), http.StatusOK)

		// Bad input.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: base, Key: owner.Key, Body: map[string]any{"user": viewer.User.ID, "permission": "owner"}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: base, Key: owner.Key, Body: map[string]any{"permission": "view"}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: base, Key: owner.Key, Body: map[string]any{"user": 1}}), http.StatusBadRequest)

		// Authentication and scopes, on every endpoint.
		for _, r := range []req{
			{Path: base}, {Method: "POST", Path: base, Body: map[string]any{"user": viewer.User.ID, "permission": "view"}},
			{Method: "PUT", Path: base, Body: []any{}}, {Path: base + "group.everyone/"},
			{Method: "PUT", Path: base + "group.everyone/", Body: map[string]any{"permission": "view"}},
			{Method: "DELETE", Path: base + "group.everyone/"},
		} {
			r.Key = owner.Key
			scope := "sources:read"
			if r.Method != "" && r.Method != "GET" {
				scope = "sources:write"
			}
			authMatrix(t, e, r, scope, nil)
			wrong := r
			wrong.Key = e.Token(t, owner.User, "layers:read layers:write")
			expectDetail(t, e.Do(t, wrong), http.StatusUnauthorized, scope)
		}

		// The GraphQL twins.
		g := e.GraphQL(t, owner.Key, `query($id: ID!) { datasetPermissions(type: SOURCE, id: $id) { key permission user { id } }
			source(id: $id) { myPermission permissions { key } } }`, map[string]any{"id": src.ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"myPermission":"admin"`) || !strings.Contains(string(g.Data), `"key":"group.everyone"`) {
			t.Fatalf("graphql %s %v", g.Data, g.Errors)
		}
	})
}
