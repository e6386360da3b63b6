package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 12, point 10: "Conventions the spec audit found missing: OPTIONS
// answering {name, expansions} on every view (today only groups and
// sets); the list headers and the 200 cap on every list (tokens, group
// permissions, access requests, layer/set/document versions, services,
// dataset permissions, users/{id}/access/; X-Paginate-By on layer and set
// versions reports the item count plus one)".
//
// The routes come from the router (through the authorization matrix's
// rules, which TestAuthzMatrixCoversEveryRoute keeps in step with it) and
// each is called on the matrix's fixtures by the most trusted caller its
// rule allows, so a new GET route or a new list cannot miss the checks.

// largeCapLists are the lists whose page_size cap is 100000 (spec, Limits:
// "page_size cap, group, license, version-datasource, version-tile and
// datasource link-resolution lists | 100000").
// The source's datasources are its link-resolution list.
var largeCapLists = []string{"GET /groups", "GET /sources/{sid}/datasources", "GET /licenses"}

// cursorLists page by cursor (?after=), not by page number: their Link
// header has page-first and page-next, and no page-last.
var cursorLists = []string{"GET /notifications", "GET /changes", "GET /layers/{id}/changes", "GET /tables/{id}/changes",
	"GET /sets/{id}/changes", "GET /documents/{id}/changes", "GET /items/{cid}/changes", "GET /webhooks/{wid}/deliveries", "GET /audit"}

// resourceRangeRE is X-Resource-Range: start-end/total.
var resourceRangeRE = regexp.MustCompile(`^(\d+)-(\d+)/(\d+)$`)

func TestConventionsEveryView(t *testing.T) {
	rules := matrixRules()
	var keys []string
	for _, r := range restRoutes(t) {
		if r.method == http.MethodGet {
			keys = append(keys, routeKey(r.method, r.pattern))
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixtures(t, servertest.New(t, s))
		lists := 0
		for _, k := range keys {
			r, ok := rules[k]
			if !ok {
				t.Errorf("%s: no matrix rule (TestAuthzMatrixCoversEveryRoute)", k)
				continue
			}
			t.Run(k, func(t *testing.T) {
				path, who, ok := f.firstAllowed(t, r)
				if !ok {
					t.Skipf("no caller may read %s on the fixtures", k)
				}
				name := f.checkOptions(t, path)
				resp := f.e.Do(t, req{Method: http.MethodGet, Path: path, Key: f.key(who)})
				if resp.Status != http.StatusOK {
					return
				}
				if isJSONArray(resp.Body) != strings.HasSuffix(name, " List") {
					t.Errorf("OPTIONS names the view %q, but GET answers %.80s", name, resp.Body)
				}
				if !isJSONArray(resp.Body) {
					return
				}
				lists++
				cursor := slices.Contains(cursorLists, k)
				checkListHeaders(t, resp.Header, 100, cursor)
				capOK := 200
				if slices.Contains(largeCapLists, k) {
					capOK = 100000
				}
				over := f.e.Do(t, req{Method: http.MethodGet, Path: withQuery(path, "page_size="+strconv.Itoa(capOK+1)), Key: f.key(who)})
				if over.Status != http.StatusBadRequest || !strings.Contains(string(over.Body), "page_size") {
					// Spec, Errors: "400 | page_size above its cap".
					t.Errorf("page_size=%d: %d %s, want 400 naming page_size", capOK+1, over.Status, over.Body)
				}
				at := f.e.Do(t, req{Method: http.MethodGet, Path: withQuery(path, "page_size=200"), Key: f.key(who)})
				if at.Status != http.StatusOK {
					t.Errorf("page_size=200: %d %s", at.Status, at.Body)
				}
				checkListHeaders(t, at.Header, 200, cursor)
			})
		}
		if lists < 20 {
			t.Errorf("only %d routes answered a list: the walk did not reach the lists", lists)
		}
		t.Logf("%d GET routes, %d lists", len(keys), lists)
	})
}

// firstAllowed is the first target of r, filled with its first fixture
// object, that some role may call, and the most trusted such role.
func (f *fixtures) firstAllowed(t *testing.T, r rule) (string, role, bool) {
	t.Helper()
	objs := []*object{nil}
	if r.kind != "" {
		objs = f.objects[r.kind]
	}
	for _, tg := range r.targets {
		if tg.need.nobody || strings.Contains(tg.path, "{other.") {
			continue
		}
		for _, o := range objs {
			for i := len(roles) - 1; i >= 0; i-- {
				if tg.need.allows(roles[i], o) {
					return f.fill(t, tg.path, o), roles[i], true
				}
			}
		}
	}
	return "", anonymous, false
}

// checkOptions: spec, Conventions for list endpoints: "An OPTIONS request
// on a view returns an object with `name` and `expansions` (array of
// valid names)." Anyone may ask.
func (f *fixtures) checkOptions(t *testing.T, path string) string {
	t.Helper()
	resp := f.e.Do(t, req{Method: http.MethodOptions, Path: path})
	if resp.Status != http.StatusOK {
		t.Fatalf("OPTIONS %s: %d %s", path, resp.Status, resp.Body)
	}
	var v struct {
		Name       *string   `json:"name"`
		Expansions *[]string `json:"expansions"`
	}
	resp.JSON(t, &v)
	if v.Name == nil || *v.Name == "" || v.Expansions == nil {
		t.Fatalf("OPTIONS %s = %s, want {name, expansions}", path, resp.Body)
	}
	if resp.Header.Get("Accepted-OAuth-Scopes") == "" {
		t.Fatalf("OPTIONS %s: no Accepted-OAuth-Scopes", path)
	}
	return *v.Name
}

// checkListHeaders: spec, Conventions for list endpoints: "Response
// headers on lists: X-Paginate-By (items per page) and X-Resource-Range
// (start-end/total). A Link header (RFC 5988) carries relations such as
// page-next, page-last".
func checkListHeaders(t *testing.T, h http.Header, perPage int, cursor bool) {
	t.Helper()
	if got := h.Get("X-Paginate-By"); got != strconv.Itoa(perPage) {
		t.Errorf("X-Paginate-By = %q, want %d (items per page, not the count)", got, perPage)
	}
	if !resourceRangeRE.MatchString(h.Get("X-Resource-Range")) {
		t.Errorf("X-Resource-Range = %q, want start-end/total", h.Get("X-Resource-Range"))
	}
	link := h.Get("Link")
	if !strings.Contains(link, `rel="page-first"`) || (!cursor && !strings.Contains(link, `rel="page-last"`)) {
		t.Errorf("Link = %q, want page-first and page-last relations", link)
	}
}

func isJSONArray(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '[' && json.Valid(b)
}

func withQuery(path, q string) string {
	if strings.Contains(path, "?") {
		return path + "&" + q
	}
	return path + "?" + q
}

// Issue 12: "X-Paginate-By on layer and set versions reports the item
// count plus one". It is the page size, and the versions page like any
// list.
func TestVersionListsPage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixtures(t, servertest.New(t, s))
		for _, kind := range []string{"layers", "tables", "sets", "documents"} {
			o := f.objects[kind][0]
			path := f.fill(t, "/"+kind+"/{id}/versions/?page_size=1", o)
			resp := f.e.Do(t, req{Method: http.MethodGet, Path: path, Key: f.key(siteAdmin)})
			var page []map[string]any
			expectStatus(t, resp, http.StatusOK)
			resp.JSON(t, &page)
			if len(page) != 1 || resp.Header.Get("X-Paginate-By") != "1" {
				t.Fatalf("%s: %d versions, X-Paginate-By %q; want 1 and 1", path, len(page), resp.Header.Get("X-Paginate-By"))
			}
			m := resourceRangeRE.FindStringSubmatch(resp.Header.Get("X-Resource-Range"))
			if m == nil || m[1] != "0" || m[2] != "1" || m[3] == "1" {
				t.Fatalf("%s: X-Resource-Range %q, want 0-1/total with a draft and a published version", path, resp.Header.Get("X-Resource-Range"))
			}
			if !strings.Contains(resp.Header.Get("Link"), `rel="page-next"`) {
				t.Fatalf("%s: Link %q has no page-next", path, resp.Header.Get("Link"))
			}
			second := f.e.Do(t, req{Method: http.MethodGet, Path: path + "&page=2", Key: f.key(siteAdmin)})
			var next []map[string]any
			second.JSON(t, &next)
			if len(next) != 1 || next[0]["id"] == page[0]["id"] {
				t.Fatalf("%s page 2 = %s, want the other version", path, second.Body)
			}
		}
	})
}
