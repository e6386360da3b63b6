package rest_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/ogc"
)

// GeoServices REST (ogc/arcgis*.go) in the matrix. FeatureServer and the
// layer queries need esri-rest-api, whose default is the owner's view
// permission (SPEC, service-permission rule 1: "view permission gives
// access to" the others); MapServer layers need esri-map as well, which
// tables have not (it is a geometry service). A dataset the caller may
// not use is a 404 Esri error, as a missing one; scope query.

// arcgisRouterKeys are the GeoServices REST routes.
func arcgisRouterKeys(t *testing.T) []string {
	t.Helper()
	r := chi.NewRouter()
	ogc.NewArcGIS(ogcfeatures.New(&store.Store{}, 0, nil), nil, nil, "", nil).Mount(r)
	// The services' roots are mounted with and without a final slash
	// (Esri Leaflet asks for both): one route of the matrix.
	var keys []string
	err := chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if k := routeKey(method, route); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// addArcGISOwners adds the objects the GeoServices routes run on:
// arcgis, the layers and tables as layer_{id} services ({arcgisname}) and the
// sets as set_{id}, with the unpublished layer nobody gets; arcgislayers,
// the layers and tables alone (layer 0 of their service);
// arcgismaplayers, the layers, and the tables as objects nobody gets.
func (f *fixtures) addArcGISOwners(t *testing.T) {
	t.Helper()
	for _, kind := range []string{"layers", "tables"} {
		for _, o := range f.objects[kind] {
			o.vars["arcgisname"] = "layer_" + o.vars["id"]
			f.objects["arcgis"] = append(f.objects["arcgis"], o)
			f.objects["arcgislayers"] = append(f.objects["arcgislayers"], o)
			if kind == "layers" {
				f.objects["arcgismaplayers"] = append(f.objects["arcgismaplayers"], o)
			} else {
				f.objects["arcgismaplayers"] = append(f.objects["arcgismaplayers"], &object{name: o.name + "-map", hidden: true,
					vars: map[string]string{"id": o.vars["id"], "arcgisname": o.vars["arcgisname"]}})
			}
		}
	}
	for _, o := range f.objects["sets"] {
		o.vars["arcgisname"] = "set_" + o.vars["id"]
		f.objects["arcgis"] = append(f.objects["arcgis"], o)
	}
	for _, o := range f.objects["collections"] {
		if o.name == "layers/unpublished" {
			u := &object{name: "arcgis/unpublished", hidden: true, vars: map[string]string{"id": o.vars["id"], "arcgisname": "layer_" + o.vars["id"]}}
			f.objects["arcgis"] = append(f.objects["arcgis"], u)
			f.objects["arcgislayers"] = append(f.objects["arcgislayers"], u)
		}
	}
}

func arcgisRules(rules map[string]rule) {
	at := "{origin}/services/arcgis/rest"
	in := "/services/arcgis/rest/services/{name}"
	svc := at + "/services/{arcgisname}"
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		rules[m+" /services/arcgis/rest/info"] = rule{plain: true, read: true, targets: []target{{at + "/info?f=json", anyone}}}
		rules[m+" /services/arcgis/rest/services"] = rule{plain: true, read: true, check: listsArcGIS, targets: []target{
			{at + "/services?f=json", anyone}, {at + "/services?f=pjson&key={key}", anyone}}}
		rules[m+" "+in+"/FeatureServer"] = rule{kind: "arcgis", plain: true, read: true, targets: []target{
			{svc + "/FeatureServer?f=json", canView}, {svc + "/FeatureServer?f=json&key={key}", canView}}}
		rules[m+" "+in+"/FeatureServer/{layer}"] = rule{kind: "arcgislayers", plain: true, read: true, targets: []target{
			{svc + "/FeatureServer/0?f=json", canView}}}
		rules[m+" "+in+"/FeatureServer/{layer}/query"] = rule{kind: "arcgislayers", plain: true, read: true, targets: []target{
			{svc + "/FeatureServer/0/query?where=1%3D1&outFields=*&f=json", canView},
			{svc + "/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=geojson&key={key}", canView}}}
		rules[m+" "+in+"/MapServer/{layer}"] = rule{kind: "arcgismaplayers", plain: true, read: true, targets: []target{
			{svc + "/MapServer/0?f=json", canView}}}
		rules[m+" "+in+"/MapServer/{layer}/query"] = rule{kind: "arcgismaplayers", plain: true, read: true, targets: []target{
			{svc + "/MapServer/0/query?where=1%3D1&f=json", canView}}}
	}
	// CORS preflights carry no credentials: anyone gets them.
	rules["OPTIONS /services/arcgis/rest/info"] = rule{plain: true, targets: []target{{at + "/info", anyone}}}
	rules["OPTIONS /services/arcgis/rest/services"] = rule{plain: true, targets: []target{{at + "/services", anyone}}}
	for _, p := range []string{"/FeatureServer", "/FeatureServer/{layer}", "/FeatureServer/{layer}/query", "/MapServer/{layer}", "/MapServer/{layer}/query"} {
		rules["OPTIONS "+in+p] = rule{kind: "arcgislayers", plain: true, targets: []target{{svc + strings.ReplaceAll(p, "{layer}", "0"), anyone}}}
	}
}

// listsArcGIS checks that the services directory names exactly the
// layers and tables the caller may view, with their FeatureServer.
func listsArcGIS(t *testing.T, f *fixtures, _ *object, path string, ro role, resp *servertest.Response) {
	t.Helper()
	if resp.Status != http.StatusOK {
		return
	}
	for _, kind := range []string{"layers", "tables"} {
		for _, o := range f.objects[kind] {
			listed := regexp.MustCompile(`"name":\s*"layer_` + o.vars["id"] + `",\s*"type":\s*"FeatureServer"`).Match(resp.Body)
			if want := o.levels[ro] >= lvView; listed != want {
				t.Errorf("%s as %s lists %s: %v, want %v", path, ro, o.name, listed, want)
			}
		}
	}
}
