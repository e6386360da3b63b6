package rest_test

import (
	"net/http"
	"strings"
	"testing"
)

// Consumer actions star and pin: POST sets, DELETE clears, both
// idempotent; is_starred and is_pinned are the caller's own.
func TestCatalogItemStarAndPin(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		draftOnly := createItem(t, e, pub, map[string]any{"title": "Hidden", "link_url": "https://example.org/h"})
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		it = publishItem(t, e, pub, it.ThisVersion)
		for _, action := range []struct{ path, field, gql string }{{"star/", "is_starred", "isStarred"}, {"pin/", "is_pinned", "isPinned"}} {
			t.Run(action.path, func(t *testing.T) {
				mark := func(t *testing.T, method, key string) {
					t.Helper()
					expectStatus(t, e.Do(t, req{Method: method, Path: it.URL + action.path, Key: key}), http.StatusNoContent)
				}
				marked := func(key string) bool {
					r := e.Do(t, req{Path: it.URL, Key: key})
					return strings.Contains(string(r.Body), `"`+action.field+`":true`)
				}
				authMatrix(t, e, req{Method: "POST", Path: it.URL + action.path}, "catalog", nil)
				wrong := e.Token(t, reader.User, "items:write")
				expectDetail(t, e.Do(t, req{Method: "POST", Path: it.URL + action.path, Key: wrong}), http.StatusUnauthorized, "catalog")
				expectStatus(t, e.Do(t, req{Method: "POST", Path: draftOnly.URL + action.path, Key: reader.Key}), http.StatusNotFound)

				mark(t, "POST", reader.Key)
				mark(t, "POST", reader.Key)
				if !marked(reader.Key) || marked(pub.Key) {
					t.Fatal("the mark is not the reader's alone")
				}
				g := e.GraphQL(t, reader.Key, `query($id: String!) { catalogItem(id: $id) { `+action.gql+` } }`, map[string]any{"id": it.ID})
				if len(g.Errors) > 0 || string(g.Data) != `{"catalogItem":{"`+action.gql+`":true}}` {
					t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
				}
				mark(t, "DELETE", reader.Key)
				mark(t, "DELETE", reader.Key)
				if marked(reader.Key) {
					t.Fatal("still marked after DELETE")
				}
				// Anonymous readers are never marked.
				if r := e.Do(t, req{Path: it.URL}); !strings.Contains(string(r.Body), `"`+action.field+`":false`) {
					t.Fatalf("anonymous %s", r.Body)
				}
			})
		}
		g := e.GraphQL(t, reader.Key, `mutation($id: String!) { starCatalogItem(itemID: $id, starred: true) { isStarred } }`, map[string]any{"id": it.ID})
		if len(g.Errors) > 0 || string(g.Data) != `{"starCatalogItem":{"isStarred":true}}` {
			t.Fatalf("GraphQL star %s %+v", g.Data, g.Errors)
		}
	})
}

// Request access: POST files an outstanding request for the item's
// administrators (202), GET returns the caller's, DELETE revokes it; 409
// when the caller already has access.
func TestCatalogItemRequestAccess(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		it = publishItem(t, e, pub, it.ThisVersion)
		path := it.URL + "request-access/"

		authMatrix(t, e, req{Method: "POST", Path: path}, "catalog", nil)
		authMatrix(t, e, req{Path: path}, "catalog", nil)
		expectStatus(t, e.Do(t, req{Path: path, Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: path, Key: reader.Key}), http.StatusNotFound)

		r := e.Do(t, req{Method: "POST", Path: path, Key: reader.Key})
		expectStatus(t, r, http.StatusAccepted)
		var ar struct {
			ID     int    `json:"id"`
			Status string `json:"status"`
			Item   string `json:"item"`
			User   struct{ ID int }
		}
		r.JSON(t, &ar)
		if ar.Status != "outstanding" || ar.Item != it.URL || ar.User.ID != reader.ID {
			t.Fatalf("request %s", r.Body)
		}
		first := ar.ID
		r = e.Do(t, req{Method: "POST", Path: path, Key: reader.Key})
		expectStatus(t, r, http.StatusAccepted)
		r.JSON(t, &ar)
		if ar.ID != first {
			t.Fatalf("a second request made another: %s", r.Body)
		}
		r = e.Do(t, req{Path: path, Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &ar)
		if ar.ID != first {
			t.Fatalf("GET %s", r.Body)
		}
		// The item's administrator was told.
		r = e.Do(t, req{Path: "/notifications/", Key: pub.Key})
		if !strings.Contains(string(r.Body), `"item.access_requested"`) {
			t.Fatalf("notifications %s", r.Body)
		}
		// The administrator already has access: 409, REST and GraphQL.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: path, Key: pub.Key}), http.StatusConflict)
		g := e.GraphQL(t, pub.Key, `mutation($id: String!) { requestCatalogItemAccess(itemID: $id) { id } }`, map[string]any{"id": it.ID})
		if len(g.Errors) != 1 || g.Errors[0].Code() != "CONFLICT" {
			t.Fatalf("GraphQL %+v", g.Errors)
		}
		g = e.GraphQL(t, reader.Key, `query($id: String!) { catalogItem(id: $id) { myAccessRequest { id status } } }`, map[string]any{"id": it.ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"status":"outstanding"`) {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}

		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: path, Key: reader.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: path, Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: path, Key: reader.Key}), http.StatusNotFound)
	})
}
