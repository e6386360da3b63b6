package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/datasetaccessrequest"
)

// The administrators' side of requests for access to a catalog item: its
// admins list outstanding requests, approve one (the requester gets a
// permission on the item and is told) or decline one (the requester is
// told).
func TestCatalogItemAccessRequestAnswers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		editor := e.NewUser(t, "Editor")
		carol, dave, erin := e.NewUser(t, "Carol"), e.NewUser(t, "Dave"), e.NewUser(t, "Erin")
		stranger := e.NewUser(t, "Stranger")
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		it = publishItem(t, e, pub, it.ThisVersion)
		hidden := createItem(t, e, stranger, map[string]any{"title": "Theirs", "link_url": "https://example.org/t"})
		// Everyone views the item; the editor edits it.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: it.URL + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "admin", "user": pub.ID}, {"permission": "edit", "user": editor.ID}, {"permission": "view", "group": "everyone"}}}), http.StatusOK)
		ask := func(u *user) int {
			t.Helper()
			r := e.Do(t, req{Method: "POST", Path: it.URL + "request-access/", Key: u.Key})
			expectStatus(t, r, http.StatusAccepted)
			var ar struct{ ID int }
			r.JSON(t, &ar)
			return ar.ID
		}
		carols, daves, erins := ask(carol), ask(dave), ask(erin)

		// The list: outstanding requests, oldest first, with their users,
		// at their place under the item.
		list := it.URL + "access-requests/"
		r := e.Do(t, req{Path: list, Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		var ars []struct {
			ID     int    `json:"id"`
			URL    string `json:"url"`
			Item   string `json:"item"`
			Status string `json:"status"`
			User   struct {
				ID        int    `json:"id"`
				FirstName string `json:"first_name"`
			} `json:"user"`
		}
		r.JSON(t, &ars)
		if len(ars) != 3 || ars[0].ID != carols || ars[0].User.FirstName != "Carol" || ars[0].Status != "outstanding" ||
			ars[0].URL != fmt.Sprintf("%s%d/", list, carols) || ars[0].Item != it.URL || ars[2].ID != erins {
			t.Fatalf("list %s", r.Body)
		}
		one := fmt.Sprintf("%s%d/", list, carols)
		expectStatus(t, e.Do(t, req{Path: one, Key: pub.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: list + "99999/", Key: pub.Key}), http.StatusNotFound)
		// Reads: the item's admins only (editors see the item: 403); the
		// catalog scope.
		authMatrix(t, e, req{Path: list}, "catalog", editor)
		authMatrix(t, e, req{Path: one}, "catalog", carol)
		expectStatus(t, e.Do(t, req{Path: hidden.URL + "access-requests/", Key: pub.Key}), http.StatusNotFound)
		g := e.GraphQL(t, pub.Key, `query($cid: String!) { catalogItemAccessRequests(itemID: $cid) { id status user { firstName } } }`, map[string]any{"cid": it.ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), fmt.Sprintf(`{"id":"%d","status":"outstanding","user":{"firstName":"Carol"}}`, carols)) {
			t.Fatalf("GraphQL list %s %v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, editor.Key, `query($cid: String!) { catalogItemAccessRequests(itemID: $cid) { id } }`, map[string]any{"cid": it.ID})
		if gqlStatus(g.Errors) != http.StatusForbidden {
			t.Fatalf("GraphQL editor %v", g.Errors)
		}

		// Approve: writes need items:write and admin; a bad permission is a
		// 400 that grants nothing and leaves the request outstanding.
		approve := one + "approve/"
		authMatrix(t, e, req{Method: "POST", Path: approve}, "items:write", editor)
		grants := e.Store.Client.DatasetPermission.Query().CountX(t.Context())
		for _, body := range []any{map[string]any{"permission": "owner"}, map[string]any{"permission": 3}, "[]"} {
			r := e.Do(t, req{Method: "POST", Path: approve, Key: pub.Key, Body: body})
			if r.Status != http.StatusBadRequest || len(r.Body) < 10 {
				t.Errorf("approve %v: %d %s", body, r.Status, r.Body)
			}
		}
		if e.Store.Client.DatasetPermission.Query().CountX(t.Context()) != grants {
			t.Fatal("a refused approval granted")
		}
		// No body: download, the requester's to keep and be told of.
		r = e.Do(t, req{Method: "POST", Path: approve, Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		var p permRecord
		r.JSON(t, &p)
		if p.ID != fmt.Sprintf("user.%d", carol.ID) || p.Permission != "download" || p.User == nil || p.User.ID != carol.ID ||
			r.Header.Get("Location") != p.URL || p.URL != fmt.Sprintf("%spermissions/user.%d/", it.URL, carol.ID) {
			t.Fatalf("approved %s (Location %q)", r.Body, r.Header.Get("Location"))
		}
		expectStatus(t, e.Do(t, req{Path: p.URL, Key: pub.Key}), http.StatusOK)
		if got := notifications(t, e, carol.ID); fmt.Sprint(got) != "[item.access_approved]" {
			t.Fatalf("carol's notifications %v", got)
		}
		g = e.GraphQL(t, carol.Key, `query($cid: String!) { catalogItem(id: $cid) { myPermission myAccessRequest { id } } }`, map[string]any{"cid": it.ID})
		if len(g.Errors) > 0 || string(g.Data) != `{"catalogItem":{"myPermission":"download","myAccessRequest":null}}` {
			t.Fatalf("carol after approval %s %v", g.Data, g.Errors)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: approve, Key: pub.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: one, Key: pub.Key}), http.StatusNotFound)

		// A named level; a higher grant the requester holds stays.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: it.URL + "permissions/", Key: pub.Key, Body: map[string]any{"permission": "admin", "user": erin.ID}}), http.StatusCreated)
		r = e.Do(t, req{Method: "POST", Path: fmt.Sprintf("%s%d/approve/", list, erins), Key: pub.Key, Body: map[string]any{"permission": "edit"}})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &p)
		if p.Permission != "admin" {
			t.Fatalf("erin's grant lowered: %s", r.Body)
		}

		// Decline: 204, told; then gone. Editors may not.
		decline := fmt.Sprintf("%s%d/", list, daves)
		authMatrix(t, e, req{Method: "DELETE", Path: decline}, "items:write", editor)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: decline, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: decline, Key: pub.Key}), http.StatusNotFound)
		if got := notifications(t, e, dave.ID); fmt.Sprint(got) != "[item.access_declined]" {
			t.Fatalf("dave's notifications %v", got)
		}
		if n, _ := e.Store.Client.DatasetAccessRequest.Query().Where(datasetaccessrequest.StatusEQ(datasetaccessrequest.StatusDeclined)).Count(t.Context()); n != 1 {
			t.Fatalf("%d declined requests", n)
		}
		expectStatus(t, e.Do(t, req{Path: it.URL + "request-access/", Key: dave.Key}), http.StatusNotFound)
		r = e.Do(t, req{Path: list, Key: pub.Key})
		if string(r.Body) != "[]\n" {
			t.Fatalf("list after answers %s", r.Body)
		}

		// GraphQL approves the same way.
		ask(dave)
		var again []struct{ ID int }
		e.Do(t, req{Path: list, Key: pub.Key}).JSON(t, &again)
		g = e.GraphQL(t, pub.Key, `mutation($cid: String!, $rid: ID!) { approveCatalogItemAccessRequest(itemID: $cid, requestID: $rid, permission: view) { key permission } }`,
			map[string]any{"cid": it.ID, "rid": again[0].ID})
		if len(g.Errors) > 0 || string(g.Data) != fmt.Sprintf(`{"approveCatalogItemAccessRequest":{"key":"user.%d","permission":"view"}}`, dave.ID) {
			t.Fatalf("GraphQL approve %s %v", g.Data, g.Errors)
		}
	})
}
