package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/server/servertest"
)

type publisherRecord struct {
	ID           string `json:"id"`
	URL          string `json:"url"`
	Type         string `json:"type"`
	Name         string `json:"name"`
	DatasetCount int    `json:"dataset_count"`
	Site         struct {
		Name string `json:"name"`
	} `json:"site"`
	Theme struct {
		BackgroundColor string  `json:"background_color"`
		Logo            *string `json:"logo"`
	} `json:"theme"`
}

// api-shapes §10.1, §10.3: publishers/ lists site groups and users as
// publishers {id, name, dataset_count, site: {name}, theme}, with
// X-Resource-Range; `user:{id}` ids are user publishers; facets=True
// answers {type: [{key, total}]}. A dataset counts only for callers who
// may see it.
func TestPublishersListGroupsAndUsersWithDatasetCounts(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		r := e.Do(t, req{Method: "POST", Path: "/group/", Key: admin.Key, Body: map[string]any{"name": "Harbour Board", "country": "NZ"}})
		expectStatus(t, r, http.StatusCreated)
		var g struct{ ID int }
		r.JSON(t, &g)
		gid := g.ID
		ly := seedLayer(t, e, admin.User, "layer", "Harbour depths", false)
		e.Store.Client.Layer.UpdateOne(ly).SetGroupID(gid).ExecX(t.Context())
		indexCatalog(t, e, nil)

		get := func(key, query string) ([]publisherRecord, *servertest.Response) {
			r := e.Do(t, req{Path: "/publishers/?" + query, Key: key})
			expectStatus(t, r, http.StatusOK)
			var ps []publisherRecord
			r.JSON(t, &ps)
			return ps, r
		}
		// The desktop plugin's call.
		ps, r := get("", "public=true&sort=popularity&type=user&page=1&page_size=20")
		if len(ps) != 1 || ps[0].ID != "user:"+itoa(f.owner.ID) || ps[0].Type != "user" || ps[0].Name != "Owner Tester" {
			t.Fatalf("user publishers: %+v", ps)
		}
		// Six published datasets everyone sees; the private one counts
		// for its owner only.
		if ps[0].DatasetCount != 6 || r.Header.Get("X-Resource-Range") != "0-1/1" {
			t.Fatalf("anonymous count %d, range %s", ps[0].DatasetCount, r.Header.Get("X-Resource-Range"))
		}
		if ps, _ := get(f.owner.Key, "type=user"); ps[0].DatasetCount != 7 {
			t.Fatalf("the owner's count: %d", ps[0].DatasetCount)
		}
		ps, _ = get("", "type=site")
		if len(ps) != 1 || ps[0].ID != "group:"+itoa(gid) || ps[0].Name != "Harbour Board" || ps[0].DatasetCount != 1 {
			t.Fatalf("site publishers: %+v", ps)
		}
		if ps, _ := get("", "type=mirror"); len(ps) != 0 {
			t.Fatalf("mirrors: %+v", ps)
		}
		ps, _ = get("", "sort=name")
		if len(ps) != 2 || ps[0].Name != "Harbour Board" {
			t.Fatalf("by name: %+v", ps)
		}
		if ps, _ := get("", "q=harbour"); len(ps) != 1 || ps[0].Type != "site" {
			t.Fatalf("q=harbour: %+v", ps)
		}
		r = e.Do(t, req{Path: "/publishers/?facets=True&public=true&sort=popularity"})
		expectStatus(t, r, http.StatusOK)
		var fc struct {
			Type []struct {
				Key   string `json:"key"`
				Total int    `json:"total"`
			} `json:"type"`
		}
		r.JSON(t, &fc)
		if len(fc.Type) != 2 || fc.Type[0].Key != "site" || fc.Type[0].Total != 1 || fc.Type[1].Key != "user" || fc.Type[1].Total != 1 {
			t.Fatalf("facets: %s", r.Body)
		}
		// One publisher; a user with nothing published is none.
		one := doJSON[publisherRecord](t, e, req{Path: "/publishers/group:" + itoa(gid) + "/"}, http.StatusOK)
		if one.DatasetCount != 1 || one.URL != e.API+"/publishers/group:"+itoa(gid)+"/" {
			t.Fatalf("publisher: %+v", one)
		}
		expectStatus(t, e.Do(t, req{Path: "/publishers/user:" + itoa(f.other.ID) + "/"}), http.StatusNotFound)
		for _, bad := range []string{"type=ghost", "sort=random", "public=maybe", "facets=x", "page_size=500"} {
			expectStatus(t, e.Do(t, req{Path: "/publishers/?" + bad}), http.StatusBadRequest)
		}
		// Expand: list.publisher inlines the publisher in /data/ entries.
		var es []entry
		r = e.Do(t, req{Path: "/data/?q=harbour+depths&kind=layer", Header: map[string]string{"Expand": "list.publisher"}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &es)
		if len(es) != 1 || es[0].Publisher == nil || es[0].Publisher.ID != "group:"+itoa(gid) {
			t.Fatalf("list.publisher: %s", r.Body)
		}
	})
}

// api-shapes §10.1: explore-sections/ is [{slug, label, description,
// icon_url}]; explore-sections/{slug}/ is {panels: [{title, items: [{kind:
// "layer.<…>", content: <dataset>}]}]}, with the plugin's page_size=20,
// item_type=layer.* and Expand.
func TestExploreSections(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		newCatalogFixture(t, e, nil)
		var sections []struct {
			Slug, Label, Description string
			IconURL                  string `json:"icon_url"`
		}
		r := e.Do(t, req{Path: "/explore-sections/", Header: map[string]string{"Expand": "list,list.publisher,list.styles,list.data.source_summary"}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &sections)
		var slugs []string
		for _, s := range sections {
			slugs = append(slugs, s.Slug)
			if !strings.HasPrefix(s.IconURL, "data:image/svg+xml;base64,") || s.Label == "" {
				t.Errorf("section %+v", s)
			}
		}
		if !slices.Equal(slugs, []string{"popular", "recent", "browse", "publishers"}) {
			t.Fatalf("slugs %v", slugs)
		}
		type panels struct {
			Panels []struct {
				Title string `json:"title"`
				Items []struct {
					Kind    string          `json:"kind"`
					Content json.RawMessage `json:"content"`
				} `json:"items"`
			} `json:"panels"`
		}
		for _, slug := range []string{"popular", "recent", "browse"} {
			r := e.Do(t, req{Path: "/explore-sections/" + slug + "/?page_size=20&item_type=layer.*",
				Header: map[string]string{"Expand": "list,list.publisher,list.styles,list.data.source_summary"}})
			expectStatus(t, r, http.StatusOK)
			var p panels
			r.JSON(t, &p)
			if len(p.Panels) == 0 {
				t.Fatalf("%s: no panels: %s", slug, r.Body)
			}
			seen := map[string]bool{}
			for _, pn := range p.Panels {
				for _, it := range pn.Items {
					var c struct {
						Title     string `json:"title"`
						Publisher *struct{ ID string }
					}
					json.Unmarshal(it.Content, &c)
					seen[c.Title] = true
					if !strings.HasPrefix(it.Kind, "layer.") || c.Publisher == nil {
						t.Errorf("%s: item %s %s", slug, it.Kind, it.Content)
					}
				}
			}
			if seen["Secret parcels"] || seen["Draft rivers"] {
				t.Errorf("LEAK: %s shows a private or draft dataset to anonymous: %s", slug, r.Body)
			}
			if !seen["Public roads"] {
				t.Errorf("%s lacks Public roads: %s", slug, r.Body)
			}
		}
		var p panels
		r = e.Do(t, req{Path: "/explore-sections/publishers/"})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &p)
		if len(p.Panels) != 1 || len(p.Panels[0].Items) != 1 {
			t.Fatalf("publishers section: %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: "/explore-sections/nowhere/"}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: "/explore-sections/popular/?page_size=1000"}), http.StatusBadRequest)
	})
}

// api-shapes §10.2: users/me/ carries contexts [{name, type: user|site,
// domain, logo, org}], and country (read unconditionally at login).
func TestUsersMeHasContexts(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Plugin")
		var me struct {
			Country  string `json:"country"`
			Contexts []struct {
				Name   string         `json:"name"`
				Type   string         `json:"type"`
				Domain string         `json:"domain"`
				Org    map[string]any `json:"org"`
			} `json:"contexts"`
		}
		r := e.Do(t, req{Path: "/users/me/", Key: u.Key})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &me)
		host := strings.TrimPrefix(e.HTTP.URL, "http://")
		if me.Country != "NZ" || len(me.Contexts) != 2 || me.Contexts[0].Type != "user" || me.Contexts[1].Type != "site" ||
			me.Contexts[1].Domain != host || me.Contexts[0].Org == nil {
			t.Fatalf("me: %s", r.Body)
		}
	})
}

// api-shapes §1.3 step 3: the plugin POSTs tokens/ as a form with
// `Authorization: Bearer`, scope, name and site=*, no password grant, and
// reads key. README "Tokens": a token may not make a token stronger than
// itself (no scope it lacks, no later expiry, no looser referrers: 403);
// sessions may.
func TestTokensFromAnAuthenticatedCaller(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Plugin")
		form := func(key, scheme string, v url.Values) *servertest.Response {
			return e.Do(t, req{Method: "POST", Path: "/tokens/", Body: v.Encode(), Header: map[string]string{
				"Content-Type": "application/x-www-form-urlencoded", "Authorization": scheme + " " + key}})
		}
		pluginScopes := "query tiles catalog users:read sets:read layers:read repos:read repos:push viewers:read viewers:write wxs:wfs exports:write notifications:read"
		r := form(u.Key, "Bearer", url.Values{"scope": {pluginScopes}, "name": {"Desktop plugin"}, "site": {"*"}})
		expectStatus(t, r, http.StatusCreated)
		var tok struct {
			Key   string `json:"key"`
			Name  string `json:"name"`
			Scope string `json:"scope"`
		}
		r.JSON(t, &tok)
		if len(tok.Key) != 32 || tok.Name != "Desktop plugin" || !strings.Contains(tok.Scope, "catalog") {
			t.Fatalf("token: %s", r.Body)
		}
		// The new key works.
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Key: tok.Key}), http.StatusOK)

		// A narrow token: it may make a narrower one, never a wider one.
		narrow := e.Token(t, u.User, "catalog tokens:write")
		expectStatus(t, form(narrow, "Bearer", url.Values{"scope": {"catalog"}, "name": {"n"}}), http.StatusCreated)
		r = form(narrow, "key", url.Values{"scope": {"catalog layers:write"}, "name": {"wider"}})
		expectDetail(t, r, http.StatusForbidden, "scopes it does not hold")
		// No scope asked: the default scopes the token holds.
		r = form(narrow, "Bearer", url.Values{"name": {"default"}})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &tok)
		if tok.Scope != "catalog" {
			t.Fatalf("default scope from a narrow token: %q", tok.Scope)
		}
		// An expiring token cannot make one that outlives it.
		soon := time.Now().Add(time.Hour)
		_, key, err := e.Server.Resolver.Auth.CreateToken(t.Context(), u.User, authSpec("catalog tokens:write", &soon))
		if err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
		expectStatus(t, form(key, "Bearer", url.Values{"scope": {"catalog"}, "expires_at": {later}}), http.StatusForbidden)
		expectStatus(t, form(key, "Bearer", url.Values{"scope": {"catalog"}}), http.StatusCreated)
		// tokens:write is needed; anonymous callers still need the grant.
		noWrite := e.Token(t, u.User, "catalog")
		expectDetail(t, form(noWrite, "Bearer", url.Values{"scope": {"catalog"}}), http.StatusUnauthorized, "tokens:write")
		r = e.Do(t, req{Method: "POST", Path: "/tokens/", Body: url.Values{"scope": {"catalog"}}.Encode(),
			Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), "grant_type") {
			t.Fatalf("anonymous without a grant: %s", r.Body)
		}
		n := e.Store.Client.Token.Query().CountX(t.Context())
		if n != 8 {
			t.Fatalf("%d tokens: refused calls wrote", n)
		}
	})
}

func authSpec(scope string, expires *time.Time) auth.TokenSpec {
	return auth.TokenSpec{Name: "expiring", Scope: scope, ExpiresAt: expires}
}

// POST /tokens/ from a signed-in session (with its CSRF token), without a
// password grant: sessions are not limited by scope.
func TestTokensFromASession(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Browser")
		b := newBrowser(t)
		status, body, _ := b.do("POST", e.API+"/session/", `{"email": "`+u.Email+`", "password": "`+servertest.Password+`"}`, false)
		if status != http.StatusOK {
			t.Fatalf("login: %d %s", status, body)
		}
		var s struct {
			CSRFToken string `json:"csrf_token"`
		}
		json.Unmarshal([]byte(body), &s)
		b.csrf = s.CSRFToken
		// Without the CSRF token: refused, nothing written.
		if status, body, _ := b.do("POST", e.API+"/tokens/", `{"name": "From the browser", "scope": "catalog layers:write"}`, false); status != http.StatusForbidden {
			t.Fatalf("without CSRF: %d %s", status, body)
		}
		status, body, _ = b.do("POST", e.API+"/tokens/", `{"name": "From the browser", "scope": "catalog layers:write"}`, true)
		if status != http.StatusCreated || !strings.Contains(body, `"key"`) || !strings.Contains(body, "layers:write") {
			t.Fatalf("with the session: %d %s", status, body)
		}
		if n := e.Store.Client.Token.Query().CountX(t.Context()); n != 2 {
			t.Fatalf("%d tokens", n)
		}
	})
}

// Issue 24 #19; api-shapes §10.1: the desktop plugin asks
// explore-sections/{slug}/?page_size=20&item_type=layer.* and opens each
// item's detail from layers/{id}/. A panel holds only what item_type
// names: layer.* layers and tables, layer.vector vector layers, and so
// on; never sets, documents, catalog items or sources.
func TestExploreSectionsHoldOnlyTheItemType(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		expand := map[string]string{"Expand": "list,list.publisher,list.styles,list.data.source_summary"}
		type content struct {
			ID    any    `json:"id"`
			Type  string `json:"type"`
			Kind  string `json:"kind"`
			Title string `json:"title"`
		}
		section := func(path string) (titles []string, seen map[string]content, panels []string) {
			t.Helper()
			r := e.Do(t, req{Path: path, Key: f.other.Key, Header: expand})
			expectStatus(t, r, http.StatusOK)
			var p struct {
				Panels []struct {
					Title string `json:"title"`
					Items []struct {
						Kind    string  `json:"kind"`
						Content content `json:"content"`
					} `json:"items"`
				} `json:"panels"`
			}
			r.JSON(t, &p)
			seen = map[string]content{}
			for _, pn := range p.Panels {
				panels = append(panels, pn.Title)
				for _, it := range pn.Items {
					if want := "layer." + it.Content.Kind; it.Kind != want {
						t.Errorf("%s: item kind %q for a %s %s", path, it.Kind, it.Content.Type, it.Content.Kind)
					}
					if _, ok := seen[it.Content.Title]; !ok {
						titles = append(titles, it.Content.Title)
					}
					seen[it.Content.Title] = it.Content
				}
			}
			sort.Strings(titles)
			return titles, seen, panels
		}
		layersAndTables := []string{"Aerial photos", "Census table", "Public roads"}
		for _, slug := range []string{"popular", "recent", "browse"} {
			got, seen, _ := section("/explore-sections/" + slug + "/?page_size=20&item_type=layer.*")
			if !slices.Equal(got, layersAndTables) {
				t.Errorf("%s item_type=layer.*: %v, want %v", slug, got, layersAndTables)
			}
			// The plugin's detail dialog: layers/{id}/ of every item.
			for title, c := range seen {
				if c.Type != "layer" && c.Type != "table" {
					t.Errorf("%s: %q is a %s", slug, title, c.Type)
					continue
				}
				expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/layers/%v/", c.ID), Key: f.other.Key}), http.StatusOK)
			}
			if got, _, _ := section("/explore-sections/" + slug + "/?page_size=20&item_type=layer.vector"); !slices.Equal(got, []string{"Public roads"}) {
				t.Errorf("%s item_type=layer.vector: %v", slug, got)
			}
			if got, _, _ := section("/explore-sections/" + slug + "/?page_size=20&item_type=layer.table&item_type=layer.raster"); !slices.Equal(got, []string{"Aerial photos", "Census table"}) {
				t.Errorf("%s item_type=layer.table&layer.raster: %v", slug, got)
			}
		}
		if _, _, panels := section("/explore-sections/browse/?page_size=20&item_type=layer.*"); !slices.Equal(panels, []string{"Vector layers", "Raster layers", "Tables"}) {
			t.Errorf("browse panels for layer.*: %v", panels)
		}
		for _, bad := range []string{"ship", "layer.ship", "layer."} {
			expectStatus(t, e.Do(t, req{Path: "/explore-sections/popular/?item_type=" + bad, Header: expand}), http.StatusBadRequest)
		}
	})
}
