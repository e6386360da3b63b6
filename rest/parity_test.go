package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// Issue acceptance: "The same operation through GraphQL and REST gives the
// same result (tests compare them)."
func TestGraphQLAndRESTAgree(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		nia := e.NewUser(t, "Nia")
		for _, n := range []string{"Forest Cover", "Forest Roads", "Rivers"} {
			g := createGroup(t, e, admin, map[string]any{"name": n, "country": "NZ"})
			addMember(t, e, admin, g.ID, nia.ID, "edit_users")
		}

		t.Run("GroupSearch", func(t *testing.T) {
			r := e.Do(t, req{Path: "/groups/?q=forest+roads&page_size=2&type=normal", Key: nia.Key})
			expectStatus(t, r, http.StatusOK)
			var rest []groupSummary
			r.JSON(t, &rest)
			g := e.GraphQL(t, nia.Key, `query($in: GroupSearchInput) { groupSearch(input: $in) {
				items { id name country } pageInfo { total page pageSize } } }`,
				map[string]any{"in": map[string]any{"q": "forest roads", "pageSize": 2, "types": []string{"normal"}}})
			if len(g.Errors) > 0 {
				t.Fatalf("graphql errors %+v", g.Errors)
			}
			var data struct {
				GroupSearch struct {
					Items []struct {
						ID      string  `json:"id"`
						Name    string  `json:"name"`
						Country *string `json:"country"`
					}
					PageInfo struct{ Total, Page, PageSize int }
				}
			}
			json.Unmarshal(g.Data, &data)
			if len(data.GroupSearch.Items) != len(rest) || fmt.Sprintf("0-%d/%d", len(rest), data.GroupSearch.PageInfo.Total) != r.Header.Get("X-Resource-Range") {
				t.Fatalf("REST %s (%s) vs GraphQL %+v", r.Body, r.Header.Get("X-Resource-Range"), data)
			}
			for i := range rest {
				if fmt.Sprint(rest[i].ID) != data.GroupSearch.Items[i].ID || rest[i].Name != data.GroupSearch.Items[i].Name {
					t.Fatalf("item %d: REST %+v vs GraphQL %+v", i, rest[i], data.GroupSearch.Items[i])
				}
			}
		})

		t.Run("Members", func(t *testing.T) {
			groupID := 3 // the first created group, after the two seeded ones
			r := e.Do(t, req{Path: fmt.Sprintf("/groups/%d/permissions/", groupID), Key: admin.Key})
			expectStatus(t, r, http.StatusOK)
			var rest []memberRecord
			r.JSON(t, &rest)
			g := e.GraphQL(t, admin.Key, `query($id: ID!) { groupMembers(groupID: $id) { id permission user { id } } }`,
				map[string]any{"id": groupID})
			var data struct {
				GroupMembers []struct {
					ID         string
					Permission string
					User       struct{ ID string }
				}
			}
			json.Unmarshal(g.Data, &data)
			if len(g.Errors) > 0 || len(data.GroupMembers) != len(rest) || len(rest) != 1 {
				t.Fatalf("REST %s vs GraphQL %s %+v", r.Body, g.Data, g.Errors)
			}
			for i := range rest {
				m := data.GroupMembers[i]
				if m.ID != rest[i].ID || m.Permission != rest[i].Permission || m.User.ID != fmt.Sprint(rest[i].User.ID) {
					t.Fatalf("member %d: REST %+v vs GraphQL %+v", i, rest[i], m)
				}
			}
		})

		t.Run("Errors", func(t *testing.T) {
			// Wrong role: 403 over REST, FORBIDDEN over GraphQL, same message.
			r := e.Do(t, req{Path: "/users/", Key: nia.Key})
			expectStatus(t, r, http.StatusForbidden)
			g := e.GraphQL(t, nia.Key, `{ userSearch { items { id } } }`, nil)
			if len(g.Errors) != 1 || g.Errors[0].Code() != "FORBIDDEN" || g.Errors[0].Message != r.Detail(t) {
				t.Fatalf("REST %s vs GraphQL %+v", r.Body, g.Errors)
			}
			// Missing scope: 401 naming it over both.
			key := e.Token(t, nia.User, "query")
			r = e.Do(t, req{Path: "/groups/", Key: key})
			g = e.GraphQL(t, key, `{ groupSearch { items { id } } }`, nil)
			if r.Status != http.StatusUnauthorized || len(g.Errors) != 1 || g.Errors[0].Code() != "UNAUTHENTICATED" || g.Errors[0].Message != r.Detail(t) {
				t.Fatalf("REST %d %s vs GraphQL %+v", r.Status, r.Body, g.Errors)
			}
			// Validation: the same field named.
			r = e.Do(t, req{Method: "POST", Path: "/group/", Key: admin.Key, Body: map[string]any{"name": "", "country": "NZ"}})
			g = e.GraphQL(t, admin.Key, `mutation { createGroup(input: {name: "", country: "NZ"}) { id } }`, nil)
			if r.Status != http.StatusBadRequest || len(g.Errors) != 1 || g.Errors[0].Code() != "BAD_REQUEST" || g.Errors[0].Extensions["fields"] == nil {
				t.Fatalf("REST %d %s vs GraphQL %+v", r.Status, r.Body, g.Errors)
			}
		})

		t.Run("Me", func(t *testing.T) {
			r := e.Do(t, req{Path: "/users/me/", Key: nia.Key})
			var rest userRecord
			r.JSON(t, &rest)
			g := e.GraphQL(t, nia.Key, `{ me { id email firstName country isSiteAdmin access { permission on { id } } } }`, nil)
			var data struct {
				Me struct {
					ID, Email, FirstName, Country string
					IsSiteAdmin                   bool
					Access                        []struct{ Permission string }
				}
			}
			json.Unmarshal(g.Data, &data)
			if data.Me.ID != fmt.Sprint(rest.ID) || data.Me.Email != rest.Email || data.Me.FirstName != rest.FirstName ||
				data.Me.Country != *rest.Country || len(data.Me.Access) != 4 {
				t.Fatalf("REST %s vs GraphQL %s %+v", r.Body, g.Data, g.Errors)
			}
			// Anonymous: me is null, not an error.
			g = e.GraphQL(t, "", `{ me { id } }`, nil)
			if len(g.Errors) != 0 || string(g.Data) != `{"me":null}` {
				t.Fatalf("anonymous me: %s %+v", g.Data, g.Errors)
			}
		})
	})
}
