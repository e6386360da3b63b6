package rest_test

import (
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/rest"
)

// Issue 11 acceptance: "A generated authorization matrix test: for every
// REST route ..., as anonymous, outsider, viewer, downloader, editor,
// admin and site administrator, on private and public objects: 0 reads of
// objects the caller may not read, 0 writes the caller may not make. The
// route list comes from the router itself, so a new route without a
// matrix entry fails the test."
//
// The rules live in authzroutes_test.go, the fixtures in
// authzfixtures_test.go. For every route, object and role the matrix
// checks that
//   - no answer is a 500;
//   - no answer carries a secret the role may not see (the titles of
//     private datasets and of drafts, e-mail addresses, token names, ...),
//     whatever the route: lists and expansions included;
//   - a refused read answers 401, 403 or 404; a refused write answers a 4xx
//     and changes no row of any table (refusedWrite);
//   - an allowed call answers 2xx (or what its rule documents), so that the
//     matrix exercises the route;
//   - a token without the route's scope gets 401 naming it.
//
// The data services (OGC API - Features, WFS, tiles, TileJSON, WMTS;
// authzservices_test.go) are in it too, with their keys in the query and
// the path as well as the header; their rules call the most trusted role
// first and the refused roles again last, since those services remember
// access decisions and cache tiles.

// routeKey is "METHOD /pattern" with the parameters' regular expressions
// removed: GET /layers/{lid}/versions/{vid}.
func routeKey(method, pattern string) string {
	return method + " " + paramRE.ReplaceAllString(strings.TrimSuffix(pattern, "/"), "{$1}")
}

var paramRE = regexp.MustCompile(`\{([a-z]+):[^}]*\}`)

// restRoute is one route of the REST router: its method and chi pattern.
type restRoute struct{ method, pattern string }

// restRoutes are the routes of the REST router, as chi.Walk lists them:
// the matrix and the hostile-input tests take their routes from here.
func restRoutes(tb testing.TB) []restRoute {
	tb.Helper()
	var routes []restRoute
	err := chi.Walk(rest.New(nil, nil, "").Routes(), func(method, pattern string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routes = append(routes, restRoute{method, pattern})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return routes
}

// routerKeys are the routes of the REST router, of the point-query
// router, of the pages and of the data services.
func routerKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	for _, r := range restRoutes(t) {
		keys = append(keys, routeKey(r.method, r.pattern))
	}
	keys = append(keys, queryRouterKeys(t)...)
	keys = append(keys, pageRouterKeys(t)...)
	keys = append(keys, serviceRouterKeys(t)...)
	sort.Strings(keys)
	return slices.Compact(keys)
}

// TestAuthzMatrixCoversEveryRoute fails for a route without a rule, and
// for a rule without a route.
func TestAuthzMatrixCoversEveryRoute(t *testing.T) {
	rules := matrixRules()
	keys := routerKeys(t)
	for _, k := range keys {
		if _, ok := rules[k]; !ok {
			t.Errorf("route %q has no authorization matrix rule: add one to matrixRules (rest/authzroutes_test.go) saying who may call it", k)
		}
	}
	for k := range rules {
		if !slices.Contains(keys, k) {
			t.Errorf("matrix rule %q matches no route of the router: remove or rename it", k)
		}
	}
}

func TestAuthzMatrix(t *testing.T) {
	rules := matrixRules()
	keys := routerKeys(t)
	// Rules that consume their object (deletes, publishes) run last, in
	// their declared order.
	sort.SliceStable(keys, func(i, j int) bool { return rules[keys[i]].last < rules[keys[j]].last })
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		f := newFixtures(t, e)
		refs := referenceRules()
		for i, k := range keys {
			r, ok := rules[k]
			if !ok {
				continue // TestAuthzMatrixCoversEveryRoute reports it
			}
			if r.last > 0 && (i == 0 || rules[keys[i-1]].last == 0) {
				// The writes that name other objects, before any is
				// consumed.
				for _, k := range slices.Sorted(maps.Keys(refs)) {
					method, _, _ := strings.Cut(k, " ")
					t.Run(k, func(t *testing.T) { f.runRule(t, method, refs[k]) })
				}
			}
			method, _, _ := strings.Cut(k, " ")
			t.Run(k, func(t *testing.T) { f.runRule(t, method, r) })
		}
		// A secret no answer ever held would make its leak check vacuous.
		for _, sec := range f.secrets {
			if f.shown[sec.text] == 0 {
				t.Errorf("no answer to anyone held %q: the matrix does not show that it is hidden", sec.text)
			}
		}
		if f.totals == 0 {
			t.Error("no list total was checked")
		}
		t.Logf("%d routes, %d requests, %d list totals checked", len(keys), f.calls, f.totals)
	})
}
