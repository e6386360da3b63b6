package rest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/wfsserver"
	"github.com/geopub/geopub/ogc"
)

// The data-service routes in the authorization matrix (issue 16): "Every
// request passes the existing service rule (enabled, permitted, the
// owner's view/download level) and the token scopes the spec names
// (tiles, wxs:wfs, ...)". SPEC, service-permission rule 1: "download
// permission gives access to ... wfs ...; view permission gives access to
// tiles". A layer the caller may not use, and a disabled service, are 404
// (401 to anonymous callers of the tile services, who may see more once
// authenticated), as ogc/access_test.go asserts.

// serviceRouterKeys are the routes of the data services the server
// mounts beside the API (internal/server): OGC API - Features, WFS,
// vector and raster tiles with their TileJSON, and WMTS.
func serviceRouterKeys(t *testing.T) []string {
	t.Helper()
	r := chi.NewRouter()
	ogc.NewTiles(nil, "", nil).Mount(r)
	ogc.NewRasterTiles(nil, "", nil).Mount(r)
	feats := ogcfeatures.New(&store.Store{}, 0, nil)
	ogc.NewFeatures(feats, "").Mount(r)
	ogc.NewWFS(wfsserver.New(feats), "").Mount(r)
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

// serviceRules: OGC API - Features and WFS serve the collections
// (published layers and tables) to those holding download; tiles,
// TileJSON and WMTS serve layers and sets to those holding view.
func serviceRules(rules map[string]rule) {
	featureRules(rules)
	wfsRules(rules)
	tileRules(rules)
}

const featuresAt = "{origin}/services/ogc/features"

func featureRules(rules map[string]rule) {
	// The landing page without its slash redirects to it.
	rules["GET /services/ogc/features"] = rule{plain: true, targets: []target{{featuresAt + "/", anyone}, {featuresAt, anyone}}}
	for _, p := range []string{"/api", "/conformance"} {
		rules["GET /services/ogc/features"+p] = rule{plain: true, targets: []target{{featuresAt + p, anyone}}}
	}
	// The list shows what each caller may use: the leak checks read it.
	rules["GET /services/ogc/features/collections"] = rule{plain: true, targets: []target{
		{featuresAt + "/collections", anyone}, {featuresAt + "/collections?f=html", anyone}}}
	one := "/services/ogc/features/collections/{collection}"
	in := featuresAt + "/collections/{coll}"
	rules["GET "+one] = rule{kind: "collections", plain: true, targets: []target{{in, canDown}, {in + "?f=html", canDown}}}
	rules["GET "+one+"/items"] = rule{kind: "collections", plain: true, targets: []target{
		{in + "/items?limit=5", canDown}, {in + "/items?limit=5&f=html", canDown}}}
	rules["GET "+one+"/items/{feature}"] = rule{kind: "collections", plain: true, targets: []target{{in + "/items/{fid}", canDown}}}
	rules["GET "+one+"/queryables"] = rule{kind: "collections", plain: true, targets: []target{{in + "/queryables", canDown}}}
}

func wfsRules(rules map[string]rule) {
	wfs := "{origin}/services/wfs"
	typ := "&TYPENAMES=geopub:{coll}"
	rules["GET /services/wfs"] = rule{kind: "collections", plain: true, targets: []target{
		{wfs + "?SERVICE=WFS&REQUEST=GetCapabilities", anyone},
		{wfs + "/?SERVICE=WFS&VERSION=1.1.0&REQUEST=GetCapabilities", anyone},
		{wfs + "?SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeFeatureType" + typ, canDown},
		{wfs + "/?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&COUNT=5" + typ, canDown},
		{wfs + "?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&COUNT=5&OUTPUTFORMAT=application/json" + typ, canDown},
	}}
}

// A tile where the fixtures' roads are (z10 over Wellington).
const roadsTile = "10/1009/641"

func tileRules(rules map[string]rule) {
	tiles := "{origin}/services/tiles/v1/{tk}={id}/"
	wmts := "{origin}/services/wmts/1.0.0/{tk}/{id}"
	getTile := "?SERVICE=WMTS&REQUEST=GetTile&LAYER={tk}-{id}&TILEMATRIXSET=EPSG:3857&TILEMATRIX=10&TILEROW=641&TILECOL=1009&FORMAT=image/png"
	byRoute := map[string][]string{
		"/services/tiles/v1/{owner}/tile.json":   {tiles + "tile.json"},
		"/services/tiles/v1/{owner}/raster.json": {tiles + "raster.json"},
		// The same route serves vector tiles and images.
		"/services/tiles/v1/{owner}/{z}/{x}/{y}":                {tiles + roadsTile + ".pbf", tiles + roadsTile + ".png"},
		"/services/wmts/1.0.0/{kind}/{id}/WMTSCapabilities.xml": {wmts + "/WMTSCapabilities.xml"},
		"/services/wmts/1.0.0/{kind}/{id}":                      {wmts + "?SERVICE=WMTS&REQUEST=GetCapabilities", wmts + "/" + getTile},
	}
	for route, paths := range byRoute {
		var targets, preflights []target
		for _, p := range paths {
			targets = append(targets, target{p, canView})
			preflights = append(preflights, target{p, anyone})
		}
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			rules[m+" "+route] = rule{kind: "tileowners", plain: true, targets: targets}
		}
		// CORS preflights carry no credentials: anyone gets them.
		if route != "/services/wmts/1.0.0/{kind}/{id}" {
			rules["OPTIONS "+route] = rule{kind: "tileowners", plain: true, targets: preflights}
		}
	}
}
