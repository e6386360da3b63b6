package rest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/queryapi"
)

// The point-query routes in the authorization matrix: a query needs a key
// (Authorization or ?key=) with the query scope and view on the layer or
// set (README: service permissions, spatial-query-vector follows view).

// queryRouterKeys are the routes of the point-query router.
func queryRouterKeys(t *testing.T) []string {
	t.Helper()
	r := chi.NewRouter()
	new(queryapi.Service).Mount(r)
	var keys []string
	err := chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		keys = append(keys, routeKey(method, route))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// Near the fixture's roads, in EPSG:4326.
const nearRoads = "x=174.775&y=-41.283&radius=5000&max_results=5"

func queryRules(rules map[string]rule) {
	for _, ext := range []string{"", ".json", ".xml"} {
		for _, base := range []string{"/services/query/v1/vector", "/api/vectorQuery"} {
			q := "{origin}" + base + ext + "?layer={id}&" + nearRoads
			targets := []target{{q, userViews}}
			if base == "/api/vectorQuery" {
				// The legacy path takes a trailing slash too.
				targets = append(targets, target{"{origin}" + base + ext + "/?layer={id}&" + nearRoads, userViews})
			}
			rules["GET "+base+ext] = rule{kind: "layers", targets: targets}
		}
	}
	for _, ext := range []string{"", ".json"} {
		rules["GET /services/query/v1/set"+ext] = rule{kind: "sets",
			targets: []target{{"{origin}/services/query/v1/set" + ext + "?set={id}&" + nearRoads, userViews}}}
		// The grids (authzgridfixtures_test.go) cover the roads.
		rules["GET /services/query/v1/raster"+ext] = rule{kind: "grids",
			targets: []target{{"{origin}/services/query/v1/raster" + ext + "?layer={id}&" + nearRoads, userViews}}}
	}
}
