package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/store"
)

// starred reads is_starred of a REST representation as key.
func starred(t *testing.T, e *env, key, url string) bool {
	t.Helper()
	var rec struct {
		IsStarred *bool `json:"is_starred"`
	}
	r := e.Do(t, req{Path: url, Key: key})
	expectStatus(t, r, http.StatusOK)
	r.JSON(t, &rec)
	if rec.IsStarred == nil {
		t.Fatalf("%s has no is_starred: %s", url, r.Body)
	}
	return *rec.IsStarred
}

// listStarred reads is_starred of the list entry with the given id.
func listStarred(t *testing.T, e *env, key, list string, id int) bool {
	t.Helper()
	var recs []struct {
		ID        int   `json:"id"`
		IsStarred *bool `json:"is_starred"`
	}
	r := e.Do(t, req{Path: list, Key: key})
	expectStatus(t, r, http.StatusOK)
	r.JSON(t, &recs)
	for _, rec := range recs {
		if rec.ID == id {
			if rec.IsStarred == nil {
				t.Fatalf("%s entry %d has no is_starred: %s", list, id, r.Body)
			}
			return *rec.IsStarred
		}
	}
	t.Fatalf("%s does not list %d: %s", list, id, r.Body)
	return false
}

// starredIndex returns what the catalogue's is_starred filter finds for u.
func starredIndex(t *testing.T, e *env, u *user) []string {
	t.Helper()
	v, err := access.NewViewer(t.Context(), e.Store.Client, auth.Principal{User: u.User})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	res, err := e.Server.Resolver.Search.Search(t.Context(), search.Query{Viewer: v, State: search.Latest, IsStarred: &yes, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Ref.String())
	}
	slices.Sort(out)
	return out
}

// api-shapes §10.1: "POST / DELETE layers/{id}/star/ — empty body — star /
// unstar for the current user", and is_starred on datasets (§4.3). The
// same for tables, sets and documents, and as catalog items do: 204 both
// ways, idempotent, only on datasets the caller may see, anonymous 401.
func TestStars(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		fan := e.NewUser(t, "Fan")
		other := e.NewUser(t, "Other")
		roads := seedLayer(t, e, pub.User, layer.TypeLayer, "Roads", false)
		codes := seedLayer(t, e, pub.User, layer.TypeTable, "Codes", false)
		secret := seedLayer(t, e, pub.User, layer.TypeLayer, "Secret", false)
		e.Store.Client.DatasetPermission.Delete().Where(datasetpermission.DatasetKindEQ(datasetpermission.DatasetKindLayer),
			datasetpermission.DatasetID(secret.ID), datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).ExecX(t.Context())
		draft := seedLayer(t, e, pub.User, layer.TypeLayer, "Draft only", true)
		docID := seedDocument(t, e, pub, "Annual report", true)
		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{"title": "Transport", "items": []any{roads.ID}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)
		r = e.Do(t, req{Method: "POST", Path: s.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		waitPublish(t, e, pub.Key, r.Header.Get("Location"))

		for _, c := range []struct {
			url, list string
			id        int
			ref       string
		}{
			{memberURL(e, roads), "/layers/", roads.ID, fmt.Sprintf("layer:%d:latest", roads.ID)},
			{memberURL(e, codes), "/tables/", codes.ID, fmt.Sprintf("table:%d:latest", codes.ID)},
			{s.URL, "/sets/", s.ID, fmt.Sprintf("set:%d:latest", s.ID)},
			{fmt.Sprintf("%s/documents/%d/", e.API, docID), "/documents/", docID, fmt.Sprintf("document:%d:latest", docID)},
		} {
			t.Run(strings.Trim(c.list, "/"), func(t *testing.T) {
				star := req{Method: "POST", Path: c.url + "star/", Key: fan.Key}
				unstar := req{Method: "DELETE", Path: c.url + "star/", Key: fan.Key}
				authMatrix(t, e, req{Method: "POST", Path: c.url + "star/"}, "catalog", nil)
				wrong := star
				wrong.Key = e.Token(t, fan.User, "layers:read sets:read documents:read")
				expectDetail(t, e.Do(t, wrong), http.StatusUnauthorized, "catalog")

				if starred(t, e, fan.Key, c.url) || listStarred(t, e, fan.Key, c.list, c.id) {
					t.Fatal("starred before any star")
				}
				for range 2 {
					expectStatus(t, e.Do(t, star), http.StatusNoContent)
				}
				if !starred(t, e, fan.Key, c.url) || !listStarred(t, e, fan.Key, c.list, c.id) {
					t.Fatal("not starred after POST star/")
				}
				// Stars are the caller's own; anonymous callers see false.
				if starred(t, e, other.Key, c.url) || starred(t, e, "", c.url) || listStarred(t, e, "", c.list, c.id) {
					t.Fatal("another caller sees the fan's star")
				}
				// The catalogue's is_starred filter reads the same table.
				if got := starredIndex(t, e, fan); !slices.Contains(got, c.ref) {
					t.Fatalf("is_starred finds %v, want %s", got, c.ref)
				}
				for range 2 {
					expectStatus(t, e.Do(t, unstar), http.StatusNoContent)
				}
				if starred(t, e, fan.Key, c.url) {
					t.Fatal("still starred after DELETE star/")
				}
				if got := starredIndex(t, e, fan); slices.Contains(got, c.ref) {
					t.Fatalf("is_starred still finds %s", c.ref)
				}
			})
		}

		// Datasets the caller may not see, the wrong collection and unknown
		// ids are 404, and nothing is starred.
		for _, path := range []string{
			memberURL(e, secret) + "star/", memberURL(e, draft) + "star/",
			fmt.Sprintf("%s/tables/%d/star/", e.API, roads.ID), fmt.Sprintf("%s/layers/%d/star/", e.API, codes.ID),
			e.API + "/layers/999999/star/", e.API + "/sets/999999/star/", e.API + "/documents/99999999999999999999/star/",
		} {
			expectStatus(t, e.Do(t, req{Method: "POST", Path: path, Key: fan.Key}), http.StatusNotFound)
		}
		if got := starredIndex(t, e, fan); len(got) != 0 {
			t.Fatalf("refused stars left %v", got)
		}
		// The owner of the private layer may star it.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: memberURL(e, secret) + "star/", Key: pub.Key}), http.StatusNoContent)
		if !starred(t, e, pub.Key, memberURL(e, secret)) {
			t.Fatal("owner's star missing")
		}

		// Catalog items keep their stars in the same table.
		it := createItem(t, e, pub, map[string]any{"title": "Charts", "link_url": "https://example.com/charts"})
		expectStatus(t, e.Do(t, req{Method: "POST", Path: it.URL + "star/", Key: pub.Key}), http.StatusNoContent)
		if got := starredIndex(t, e, pub); !slices.Contains(got, "item:"+strings.TrimPrefix(it.ID, "c")+":latest") {
			t.Fatalf("is_starred finds %v, want the item", got)
		}
		if !starred(t, e, pub.Key, it.URL) {
			t.Fatal("item not starred")
		}

		// Deleting a dataset takes its stars with it.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: s.URL + "star/", Key: fan.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: s.URL, Key: pub.Key}), http.StatusNoContent)
		var n int
		if err := e.Store.DB.QueryRowContext(t.Context(), rebindTest(e, "SELECT COUNT(*) FROM search_stars WHERE doc_type = ? AND doc_id = ?"), "set", s.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%d stars of the deleted set remain", n)
		}

		// GraphQL: starLayer and isStarred.
		g := e.GraphQL(t, fan.Key, `mutation($id: ID!) { starLayer(id: $id, starred: true) { id isStarred } }`, map[string]any{"id": roads.ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"isStarred":true`) {
			t.Fatalf("starLayer: %+v %s", g.Errors, g.Data)
		}
		g = e.GraphQL(t, "", `mutation($id: ID!) { starLayer(id: $id, starred: true) { id } }`, map[string]any{"id": roads.ID})
		if len(g.Errors) == 0 || g.Errors[0].Code() != "UNAUTHENTICATED" {
			t.Fatalf("anonymous starLayer: %+v", g.Errors)
		}
		g = e.GraphQL(t, fan.Key, `mutation($id: ID!) { starDocument(id: $id, starred: false) { id isStarred } }`, map[string]any{"id": docID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"isStarred":false`) {
			t.Fatalf("starDocument: %+v %s", g.Errors, g.Data)
		}
	})
}

// rebindTest writes ? placeholders as $n on PostgreSQL.
func rebindTest(e *env, q string) string {
	return store.Rebind(q, e.Store.Dialect == "postgres")
}
