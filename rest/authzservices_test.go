package rest_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/server/servertest"
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
	mountTileArchives(r)
	mountDataTable(r)
	var keys []string
	err := chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		keys = append(keys, routeKey(method, route))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	keys = append(keys, arcgisRouterKeys(t)...)
	return keys
}

// serviceRules: OGC API - Features and WFS serve the collections
// (published layers and tables) to those holding download; tiles,
// TileJSON and WMTS serve layers and sets to those holding view.
func serviceRules(rules map[string]rule) {
	featureRules(rules)
	wfsRules(rules)
	tileRules(rules)
	arcgisRules(rules)
	arcgisMapRules(rules)
	tileArchiveRules(rules)
	dataTableRules(rules)
}

const featuresAt = "{origin}/services/ogc/features"

func featureRules(rules map[string]rule) {
	// The landing page without its slash redirects to it.
	rules["GET /services/ogc/features"] = rule{plain: true, check: notShared, targets: []target{{featuresAt + "/", anyone}, {featuresAt, anyone}}}
	for _, p := range []string{"/api", "/conformance"} {
		rules["GET /services/ogc/features"+p] = rule{plain: true, check: notShared, targets: []target{{featuresAt + p, anyone}}}
	}
	// The list shows what each caller may use: the leak checks read it.
	rules["GET /services/ogc/features/collections"] = rule{plain: true, check: checks(notShared, listsCollections("/collections/")), targets: []target{
		{featuresAt + "/collections", anyone}, {featuresAt + "/collections?f=html", anyone}, {featuresAt + "/collections?key={key}", anyone}}}
	one := "/services/ogc/features/collections/{collection}"
	in := featuresAt + "/collections/{coll}"
	rules["GET "+one] = rule{kind: "collections", plain: true, check: notShared, targets: []target{{in, canDown}, {in + "?f=html", canDown}}}
	rules["GET "+one+"/items"] = rule{kind: "collections", plain: true, check: notShared, targets: []target{
		{in + "/items?limit=5", canDown}, {in + "/items?limit=5&f=html", canDown}, {in + "/items?limit=1&key={key}", canDown},
		{"{origin}/services;key={key}/ogc/features/collections/{coll}/items?limit=1", canDown}}}
	rules["GET "+one+"/items/{feature}"] = rule{kind: "collections", plain: true, check: notShared, targets: []target{{in + "/items/{fid}", canDown}}}
	rules["GET "+one+"/queryables"] = rule{kind: "collections", plain: true, check: notShared, targets: []target{{in + "/queryables", canDown}}}
}

func wfsRules(rules map[string]rule) {
	wfs := "{origin}/services/wfs"
	typ := "&TYPENAMES=geopub:{coll}"
	rules["GET /services/wfs"] = rule{kind: "collections", plain: true, check: checks(notShared, listsCollections("geopub:")), targets: []target{
		{wfs + "?SERVICE=WFS&REQUEST=GetCapabilities", anyone},
		{wfs + "/?SERVICE=WFS&VERSION=1.1.0&REQUEST=GetCapabilities&key={key}", anyone},
		{wfs + "?SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeFeatureType" + typ, canDown},
		{wfs + "/?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&COUNT=5" + typ, canDown},
		{wfs + "?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&COUNT=5&OUTPUTFORMAT=application/json" + typ, canDown},
		// A resource id names its type: no TYPENAMES needed.
		{wfs + "?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&RESOURCEID={coll}.{fid}", canDown},
		{wfs + "?SERVICE=WFS&VERSION=1.1.0&REQUEST=GetFeature&FEATUREID={coll}.{fid}&key={key}", canDown},
		// The operation URLs WFS writes for a key given in the query carry
		// it in the path.
		{"{origin}/services;key={key}/wfs/?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&COUNT=5" + typ, canDown},
	}}
	// POST: an XML request document (the XML encoding of WFS 2.0), read
	// like the KVP.
	getFeature := func(_ *fixtures, o *object, _ role) any {
		return `<wfs:GetFeature service="WFS" version="2.0.0" count="5" xmlns:wfs="http://www.opengis.net/wfs/2.0"` +
			` xmlns:geopub="https://geopub.org/wfs"><wfs:Query typeNames="geopub:` + o.vars["coll"] + `"/></wfs:GetFeature>`
	}
	rules["POST /services/wfs"] = rule{kind: "collections", plain: true, read: true, check: notShared, body: getFeature,
		header:  map[string]string{"Content-Type": "application/xml"},
		targets: []target{{wfs, canDown}, {wfs + "/?key={key}", canDown}}}
}

// A tile where the fixtures' roads are (z10 over Wellington).
const roadsTile = "10/1009/641"

func tileRules(rules map[string]rule) {
	tiles := "{origin}/services/tiles/v1/{tk}={id}/"
	wmts := "{origin}/services/wmts/1.0.0/{tk}/{id}"
	getTile := "?SERVICE=WMTS&REQUEST=GetTile&LAYER={tk}-{id}&TILEMATRIXSET=EPSG:3857&TILEMATRIX=10&TILEROW=641&TILECOL=1009&FORMAT=image/png"
	byRoute := map[string][]string{
		"/services/tiles/v1/{owner}/tile.json": {tiles + "tile.json", tiles + "tile.json?key={key}",
			"{origin}/services;key={key}/tiles/v1/{tk}={id}/tile.json"},
		"/services/tiles/v1/{owner}/raster.json": {tiles + "raster.json", tiles + "raster.json?key={key}"},
		// The same route serves vector tiles and images.
		"/services/tiles/v1/{owner}/{z}/{x}/{y}": {tiles + roadsTile + ".pbf", tiles + roadsTile + ".png",
			tiles + roadsTile + ".webp?key={key}", "{origin}/services;key={key}/tiles/v1/{tk}={id}/" + roadsTile + ".jpg"},
		"/services/wmts/1.0.0/{kind}/{id}/WMTSCapabilities.xml": {wmts + "/WMTSCapabilities.xml", wmts + "/WMTSCapabilities.xml?key={key}"},
		"/services/wmts/1.0.0/{kind}/{id}": {wmts + "?SERVICE=WMTS&REQUEST=GetCapabilities", wmts + "/" + getTile,
			wmts + getTile + "&key={key}"},
	}
	for route, paths := range byRoute {
		var targets, preflights []target
		for _, p := range paths {
			targets = append(targets, target{p, canView})
			preflights = append(preflights, target{p, anyone})
		}
		// Grids have image tiles only: they are in the image-only routes.
		kind := "rasterowners"
		if route == "/services/tiles/v1/{owner}/tile.json" || route == "/services/tiles/v1/{owner}/{z}/{x}/{y}" {
			kind = "tileowners"
		}
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			rules[m+" "+route] = rule{kind: kind, plain: true, targets: targets, check: checks(notShared, showsSetMembers)}
		}
		// CORS preflights carry no credentials: anyone gets them.
		if route != "/services/wmts/1.0.0/{kind}/{id}" {
			rules["OPTIONS "+route] = rule{kind: kind, plain: true, check: notShared, targets: preflights}
		}
	}
}

// listsCollections checks that a collection list (OGC API - Features
// collections, WFS capabilities) names, after prefix, exactly the
// collections the caller may use: those it holds download on, whose
// service is on. A title alone would not tell: a viewer may read it.
func listsCollections(prefix string) checkFunc {
	return func(t *testing.T, f *fixtures, _ *object, path string, ro role, resp *servertest.Response) {
		t.Helper()
		// (HEAD answers have no body.)
		if resp.Status != http.StatusOK || len(resp.Body) == 0 || !strings.Contains(path, "/collections") && !strings.Contains(path, "GetCapabilities") {
			return
		}
		for _, o := range f.collections() {
			listed := regexp.MustCompile(regexp.QuoteMeta(prefix+o.vars["coll"]) + `[^0-9]`).Match(resp.Body)
			if want := o.levels[ro] >= lvDownload; listed != want {
				t.Errorf("%s as %s lists %s: %v, want %v", path, ro, o.name, listed, want)
			}
		}
	}
}

// collections are the fixtures' collections, once each.
func (f *fixtures) collections() []*object { return f.objects["collections"] }

// showsSetMembers checks that the tiles and TileJSON of the public set,
// which holds the private layer, show that member to those who may view
// it, and to no one else ("each member is checked as a layer").
func showsSetMembers(t *testing.T, f *fixtures, o *object, path string, ro role, resp *servertest.Response) {
	t.Helper()
	if o != f.objects["sets"][1] || resp.Status != http.StatusOK || len(resp.Body) == 0 || (!strings.HasSuffix(path, ".pbf") && !strings.Contains(path, "tile.json")) {
		return
	}
	member := f.objects["layers"][0]
	shown := regexp.MustCompile(`layer-` + member.vars["id"] + `[^0-9]`).Match(resp.Body)
	if want := member.levels[ro] >= lvView; shown != want {
		t.Errorf("%s as %s shows the private member layer-%s: %v, want %v", path, ro, member.vars["id"], shown, want)
	}
}

// checkFunc checks one answer further (rule.check).
type checkFunc = func(t *testing.T, f *fixtures, o *object, path string, ro role, resp *servertest.Response)

// checks runs each of fs.
func checks(fs ...checkFunc) checkFunc {
	return func(t *testing.T, f *fixtures, o *object, path string, ro role, resp *servertest.Response) {
		t.Helper()
		for _, fn := range fs {
			fn(t, f, o, path, ro, resp)
		}
	}
}

// notShared checks that no answer to a caller with a key lets shared
// caches keep it: a proxy would hand it to the next caller
// (ogc.cacheControl: "shared caches only for anonymous requests").
func notShared(t *testing.T, _ *fixtures, _ *object, path string, ro role, resp *servertest.Response) {
	t.Helper()
	if cc := strings.ToLower(resp.Header.Get("Cache-Control")); ro != anonymous && strings.Contains(cc, "public") {
		t.Errorf("%s as %s: Cache-Control %q lets shared caches keep an answer to a caller with a key", path, ro, cc)
	}
}
