package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/textrules"
)

// Issue 11, defects 3 and 13: bad text is a 400 naming the field (or is
// stored exactly), never a 500, and a refused write changes nothing.

// badLiterals are JSON string literals, sent as written.
var badLiterals = map[string]string{
	"nul":       `"a\u0000b"`,
	"surrogate": `"a\ud83db"`,
	"1000":      `"` + strings.Repeat("n", 1000) + `"`,
}

// listPaths are the lists that take q.
var listPaths = []string{"/layers/", "/layers/drafts/", "/tables/", "/tables/drafts/", "/sets/", "/sets/drafts/",
	"/groups/", "/users/", "/items/", "/items/drafts/", "/documents/", "/sources/"}

// badQueries are raw, already encoded q values.
var badQueries = map[string]string{
	"nul":         "%00",
	"invalidutf8": "%FF%FEab",
	"5KB":         strings.Repeat("a", 5000),
	"50KB":        strings.Repeat("ab+", 50000/3),
}

// expectBadField fails unless r is a 400 whose body names field.
func expectBadField(t *testing.T, r *servertest.Response, field string) {
	t.Helper()
	if r.Status != http.StatusBadRequest {
		t.Fatalf("status = %d, want 400 naming %s; body: %.300s", r.Status, field, r.Body)
	}
	if !strings.Contains(string(r.Body), field) {
		t.Fatalf("400 body does not name %s: %.300s", field, r.Body)
	}
}

func TestBadTextOnLists(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		for _, p := range listPaths {
			for name, q := range badQueries {
				t.Run(p+name, func(t *testing.T) {
					expectBadField(t, e.Do(t, req{Path: p + "?q=" + q, Key: admin.Key}), "q")
				})
			}
			// Search text at the cap is served, and the Link header stays
			// small even so, whatever else the query carries.
			longest := url.QueryEscape(strings.Repeat("\U0001F600", textrules.MaxQuery))
			r := e.Do(t, req{Path: p + "?page_size=1&q=" + longest + "&junk=" + strings.Repeat("x", 60000), Key: admin.Key})
			expectStatus(t, r, http.StatusOK)
			if n := len(r.Header.Get("Link")); n > 12<<10 {
				t.Fatalf("%s: Link header is %d bytes", p, n)
			}
			if !strings.Contains(r.Header.Get("Link"), longest) {
				t.Fatalf("%s: Link header lost q: %.200s", p, r.Header.Get("Link"))
			}
		}
	})
}

// writeCase is one create or update whose field takes a bad value.
type writeCase struct {
	method, path, body, field string
}

func TestBadTextOnWrites(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		table := seedLayer(t, e, admin.User, layer.TypeTable, "Roads table", true)
		lyr := seedLayer(t, e, admin.User, layer.TypeLayer, "Roads", true)
		tv := e.Store.Client.Layer.QueryVersions(table).FirstX(t.Context())
		lv := e.Store.Client.Layer.QueryVersions(lyr).FirstX(t.Context())
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: "/site/settings/", Key: admin.Key, Body: map[string]any{"external_services": true}}), http.StatusOK)
		cases := []writeCase{
			{"POST", "/group/", `{"name": %s, "country": "NZ"}`, "name"},
			{"POST", "/sets/", `{"title": %s}`, "title"},
			{"POST", "/sets/", `{"title": "ok", "description": %s}`, "description"},
			{"POST", "/items/", `{"link_url": "https://example.com/", "title": %s}`, "title"},
			{"POST", "/items/", `{"link_url": "https://example.com/", "title": "ok", "tags": [%s]}`, "tags"},
			{"POST", "/sources/", `{"type": "url", "url_remote": "https://93.184.216.34/x.zip", "title": %s}`, "title"},
			{"PUT", fmt.Sprintf("/tables/%d/versions/%d/", table.ID, tv.ID), `{"name": %s}`, "name"},
			{"PUT", fmt.Sprintf("/layers/%d/versions/%d/", lyr.ID, lv.ID), `{"name": %s}`, "name"},
			{"POST", "/comments/", `{"title": %s, "description": "x"}`, "title"},
			{"POST", "/comments/", `{"description": "x", "tags": %s}`, "tags"},
			{"POST", "/site/external-service-templates/", `{"title": %s, "scope": ["all"], "template_urls": [{"service_url": "https://a.example.com/"}]}`, "title"},
		}
		for kind, lit := range badLiterals {
			for _, c := range cases {
				if kind == "1000" && (c.field == "description" || c.field == "tags") {
					continue // long text is fine there
				}
				t.Run(fmt.Sprintf("%s %s %s %s", c.method, c.path, c.field, kind), func(t *testing.T) {
					before := rowCounts(t, e)
					r := e.Do(t, req{Method: c.method, Path: c.path, Key: admin.Key, Body: fmt.Sprintf(c.body, lit)})
					expectBadField(t, r, c.field)
					if after := rowCounts(t, e); after != before {
						t.Fatalf("a refused write changed the store: %v -> %v", before, after)
					}
				})
			}
		}
	})
}

// rowCounts counts the rows writes in these tests could add or change.
func rowCounts(t *testing.T, e *env) [8]int {
	ctx := t.Context()
	c := e.Store.Client
	return [8]int{c.Group.Query().CountX(ctx), c.Set.Query().CountX(ctx), c.CatalogItem.Query().CountX(ctx),
		c.Source.Query().CountX(ctx), c.Feedback.Query().CountX(ctx), c.ExternalServiceTemplate.Query().CountX(ctx),
		c.LayerVersion.Query().Where().CountX(ctx), c.SetVersion.Query().CountX(ctx)}
}

// The GraphQL door gives BAD_REQUEST for the same inputs.
func TestBadTextOnGraphQL(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		for kind, lit := range badLiterals {
			t.Run(kind, func(t *testing.T) {
				// As a variable (JSON) ...
				body := `{"query": "mutation($t: String!) { createCatalogItem(input: {linkURL: \"https://example.com/\", title: $t}) { id } }", "variables": {"t": ` + lit + `}}`
				r := e.Do(t, req{Method: "POST", Path: e.HTTP.URL + "/graphql", Key: admin.Key, Body: body})
				expectGraphQLCode(t, r, "BAD_REQUEST")
				// ... and as a literal in the document.
				doc := strings.ReplaceAll(strings.ReplaceAll(lit, `\`, `\\`), `"`, `\"`)
				body = `{"query": "mutation { createCatalogItem(input: {linkURL: \"https://example.com/\", title: ` + doc + `}) { id } }"}`
				r = e.Do(t, req{Method: "POST", Path: e.HTTP.URL + "/graphql", Key: admin.Key, Body: body})
				expectGraphQLCode(t, r, "BAD_REQUEST")
			})
		}
		for name, q := range map[string]string{"nul": "a\x00b", "long": strings.Repeat("a b ", 12500)} {
			t.Run("q "+name, func(t *testing.T) {
				r := e.Do(t, req{Method: "POST", Path: e.HTTP.URL + "/graphql", Key: admin.Key,
					Body: map[string]any{"query": `query($q: String) { layerSearch(q: $q) { pageInfo { total } } }`, "variables": map[string]any{"q": q}}})
				expectGraphQLCode(t, r, "BAD_REQUEST")
				r = e.Do(t, req{Method: "POST", Path: e.HTTP.URL + "/graphql", Key: admin.Key,
					Body: map[string]any{"query": `query($q: String) { groups(where: {nameContainsFold: $q}) { totalCount } }`, "variables": map[string]any{"q": q + strings.Repeat("x", 50000)}}})
				expectGraphQLCode(t, r, "BAD_REQUEST")
			})
		}
	})
}

func expectGraphQLCode(t *testing.T, r *servertest.Response, code string) {
	t.Helper()
	var out servertest.GraphQLResponse
	r.JSON(t, &out)
	if r.Status >= 500 || len(out.Errors) == 0 || out.Errors[0].Code() != code {
		t.Fatalf("status %d, want an error with code %s: %.400s", r.Status, code, r.Body)
	}
}

// Found by the 10,000-per-route hostile run: a sign-in whose e-mail held a
// NUL byte was a 500, because the throttle stored the e-mail as its key.
// Any e-mail text is a refused sign-in (401), never a 500.
func TestBadTextOnSignIn(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for kind, lit := range badLiterals {
			t.Run(kind, func(t *testing.T) {
				r := e.Do(t, req{Method: "POST", Path: "/session/", Body: `{"email": ` + lit + `, "password": " "}`})
				if r.Status != http.StatusUnauthorized && r.Status != http.StatusBadRequest {
					t.Fatalf("status = %d, want 401 or 400; body: %.300s", r.Status, r.Body)
				}
			})
		}
	})
}
