package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

type groupDetail struct {
	ID                    int     `json:"id"`
	URL                   string  `json:"url"`
	URLHTML               string  `json:"url_html"`
	URLSlug               string  `json:"url_slug"`
	Name                  string  `json:"name"`
	Country               *string `json:"country"`
	Permissions           any     `json:"permissions"`
	DataOwner             string  `json:"data_owner"`
	AccessRequestsEnabled bool    `json:"access_requests_enabled"`
	CatalogFeedsEnabled   bool    `json:"catalog_feeds_enabled"`
}

func createGroup(t *testing.T, e *env, admin *user, body map[string]any) groupDetail {
	t.Helper()
	return doJSON[groupDetail](t, e, req{Method: "POST", Path: "/group/", Key: admin.Key, Body: body}, http.StatusCreated)
}

// Spec, Groups and users: "POST /group/ ... Site administrators only → 201
// group detail"; name and country are required.
func TestCreateGroup(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		member := e.NewUser(t, "Member")

		r := e.Do(t, req{Method: "POST", Path: "/group/", Key: admin.Key, Body: map[string]any{
			"name": "Land Information", "country": "nz", "permissions": nil,
			"data_owner": "site", "access_requests_enabled": true,
		}})
		expectStatus(t, r, http.StatusCreated)
		var g groupDetail
		r.JSON(t, &g)
		if g.Name != "Land Information" || g.Country == nil || *g.Country != "NZ" || g.URLSlug != "land-information" ||
			g.DataOwner != "site" || !g.AccessRequestsEnabled || !g.CatalogFeedsEnabled {
			t.Fatalf("created group = %+v", g)
		}
		wantURL := fmt.Sprintf("%s/groups/%d/", e.API, g.ID)
		if g.URL != wantURL || g.Permissions != wantURL+"permissions/" || r.Header.Get("Location") != wantURL {
			t.Fatalf("urls: %s, %v, Location %s", g.URL, g.Permissions, r.Header.Get("Location"))
		}
		if !strings.HasPrefix(g.URLHTML, e.HTTP.URL+"/groups/") {
			t.Fatalf("url_html = %s", g.URLHTML)
		}
		if got := r.Header.Get("Accepted-OAuth-Scopes"); got != "users:write" {
			t.Fatalf("Accepted-OAuth-Scopes = %q", got)
		}
		// The same name again gets a distinct slug.
		g2 := createGroup(t, e, admin, map[string]any{"name": "Land Information", "country": "NZ"})
		if g2.URLSlug != "land-information-2" {
			t.Fatalf("second slug = %q", g2.URLSlug)
		}
		// GET /group/{id}/ shows the same detail.
		got := e.Do(t, req{Path: fmt.Sprintf("/group/%d/", g.ID), Key: member.Key})
		expectStatus(t, got, http.StatusOK)
		var again groupDetail
		got.JSON(t, &again)
		if again.ID != g.ID || again.URLSlug != g.URLSlug {
			t.Fatalf("GET /group/{id}/ = %+v", again)
		}

		authMatrix(t, e, req{Method: "POST", Path: "/group/", Body: map[string]any{"name": "X", "country": "NZ"}}, "users:write", member)

		for name, tc := range map[string]struct {
			body  any
			field string
		}{
			"NameRequired":    {map[string]any{"country": "NZ"}, "name"},
			"CountryRequired": {map[string]any{"name": "G"}, "country"},
			"CountryInvalid":  {map[string]any{"name": "G", "country": "Atlantis"}, "country"},
			"DataOwnerChoice": {map[string]any{"name": "G", "country": "NZ", "data_owner": "nobody"}, "data_owner"},
			"SlugTaken":       {map[string]any{"name": "G", "country": "NZ", "url_slug": "land-information"}, "url_slug"},
			"SlugShape":       {map[string]any{"name": "G", "country": "NZ", "url_slug": "Bad Slug!"}, "url_slug"},
			"WrongType":       {map[string]any{"name": 7, "country": "NZ"}, ""},
			"NotJSON":         {"{name:", ""},
		} {
			t.Run(name, func(t *testing.T) {
				before, _ := e.Store.Client.Group.Query().Count(t.Context())
				r := e.Do(t, req{Method: "POST", Path: "/group/", Key: admin.Key, Body: tc.body})
				expectStatus(t, r, http.StatusBadRequest)
				if tc.field != "" && !strings.Contains(string(r.Body), `"`+tc.field+`"`) {
					t.Fatalf("body %s does not name %s", r.Body, tc.field)
				}
				if tc.field == "" && r.Detail(t) == "" {
					t.Fatalf("body %s has no detail", r.Body)
				}
				after, _ := e.Store.Client.Group.Query().Count(t.Context())
				if after != before {
					t.Fatal("a refused create wrote a group")
				}
			})
		}
	})
}

func TestGetGroup(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		member := e.NewUser(t, "Member")
		g := createGroup(t, e, admin, map[string]any{"name": "Roads", "country": "AU"})
		path := fmt.Sprintf("/groups/%d/", g.ID)

		r := e.Do(t, req{Path: path, Key: member.Key})
		expectStatus(t, r, http.StatusOK)
		if got := r.Header.Get("Accepted-OAuth-Scopes"); got != "users:read" {
			t.Fatalf("Accepted-OAuth-Scopes = %q", got)
		}
		var got groupDetail
		r.JSON(t, &got)
		if got.ID != g.ID || got.Name != "Roads" || got.URLHTML == "" || got.DataOwner != "group" {
			t.Fatalf("detail = %+v", got)
		}
		// Spec: "Expand: permissions (needs edit_users, otherwise stays a URL)".
		r = e.Do(t, req{Path: path, Key: member.Key, Header: map[string]string{"Expand": "permissions"}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &got)
		if _, isURL := got.Permissions.(string); !isURL {
			t.Fatalf("permissions inlined for a caller without edit_users: %v", got.Permissions)
		}
		addMember(t, e, admin, g.ID, member.ID, "edit_users")
		r = e.Do(t, req{Path: path, Key: member.Key, Header: map[string]string{"Expand": "permissions"}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &got)
		list, isList := got.Permissions.([]any)
		if !isList || len(list) != 1 {
			t.Fatalf("permissions not inlined for edit_users: %v", got.Permissions)
		}
		// OPTIONS on a view returns {name, expansions}.
		r = e.Do(t, req{Method: "OPTIONS", Path: path, Key: member.Key})
		expectStatus(t, r, http.StatusOK)
		var opts struct {
			Name       string   `json:"name"`
			Expansions []string `json:"expansions"`
		}
		r.JSON(t, &opts)
		if opts.Name == "" || len(opts.Expansions) != 1 || opts.Expansions[0] != "permissions" {
			t.Fatalf("OPTIONS = %+v", opts)
		}

		expectDetail(t, e.Do(t, req{Path: "/groups/999999/", Key: member.Key}), http.StatusNotFound, "not found")
		expectStatus(t, e.Do(t, req{Path: "/groups/abc/", Key: member.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: "/groups/99999999999999999999/", Key: member.Key}), http.StatusNotFound)
		authMatrix(t, e, req{Path: path}, "users:read", nil)
		wrong := e.Token(t, member.User, "query")
		expectDetail(t, e.Do(t, req{Path: path, Key: wrong}), http.StatusUnauthorized, "users:read")
	})
}

func addMember(t *testing.T, e *env, by *user, groupID, userID int, perm string) {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/groups/%d/permissions/", groupID), Key: by.Key,
		Body: map[string]any{"user": userID, "permission": perm}})
	expectStatus(t, r, http.StatusCreated)
}
