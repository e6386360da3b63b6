package rest_test

import (
	"net/http"
	"testing"
)

// The GeoServices map services in the authorization matrix (issue 28):
// MapServer (root, export, tiles) serves layers and sets through esri-map,
// VectorTileServer vector layers through vector-tile-arcgis. Neither key
// is switched or permitted per dataset (esri-map follows the site
// setting), so they serve whoever may view the dataset: the layers whose
// tiles service is off or listed are plain public layers here. Tables
// (no geometry), layers never published and, for VectorTileServer, sets
// and grids serve nobody.

// addArcGISMapOwners adds the objects of the map service routes, {an}
// their service name (layer_N, set_N):
//   - esrimapowners: the tile owners and the grids;
//   - vtsowners: the vector layers, and the sets and grids as nobody's.
func (f *fixtures) addArcGISMapOwners(t *testing.T) {
	t.Helper()
	public := datasetLevels(true)
	named := func(o *object) *object {
		n := &object{name: o.name, levels: o.levels, hidden: o.hidden, vars: map[string]string{}}
		for k, v := range o.vars {
			n.vars[k] = v
		}
		n.vars["an"] = o.vars["tk"] + "_" + o.vars["id"]
		switch o.name {
		case "layers/services-off", "layers/listed":
			n.levels, n.hidden = public, false
		}
		return n
	}
	for _, o := range f.objects["rasterowners"] {
		n := named(o)
		f.objects["esrimapowners"] = append(f.objects["esrimapowners"], n)
		if o.vars["tk"] == "set" || len(o.name) > 5 && o.name[:5] == "grids" {
			n = &object{name: n.name + "-vts", hidden: true, vars: n.vars}
		}
		f.objects["vtsowners"] = append(f.objects["vtsowners"], n)
	}
}

func arcgisMapRules(rules map[string]rule) {
	at := "/services/arcgis/rest/services/{name}"
	in := "{origin}/services/arcgis/rest/services/{an}"
	// A tile where the fixtures' roads are, z/y/x.
	tile := "10/641/1009"
	box := "bbox=174.7,-41.35,174.9,-41.2&bboxSR=4326&size=64,64"
	byRoute := map[string]struct {
		kind  string
		paths []string
	}{
		"/MapServer":        {"esrimapowners", []string{in + "/MapServer?f=json", in + "/MapServer?f=pjson&key={key}", in + "/MapServer/?f=json&key={key}"}},
		"/MapServer/export": {"esrimapowners", []string{in + "/MapServer/export?" + box + "&f=image", in + "/MapServer/export?" + box + "&f=json&key={key}"}},
		"/MapServer/tile/{z}/{y}/{x}": {"esrimapowners", []string{in + "/MapServer/tile/" + tile, in + "/MapServer/tile/" + tile + "?key={key}",
			"{origin}/services;key={key}/arcgis/rest/services/{an}/MapServer/tile/" + tile}},
		"/VectorTileServer":                            {"vtsowners", []string{in + "/VectorTileServer?f=json", in + "/VectorTileServer?f=json&key={key}", in + "/VectorTileServer/?f=json"}},
		"/VectorTileServer/tile/{z}/{y}/{x}":           {"vtsowners", []string{in + "/VectorTileServer/tile/" + tile + ".pbf", in + "/VectorTileServer/tile/" + tile + ".pbf?key={key}"}},
		"/VectorTileServer/resources/styles/root.json": {"vtsowners", []string{in + "/VectorTileServer/resources/styles/root.json?key={key}"}},
	}
	for route, c := range byRoute {
		var targets, preflights []target
		for _, p := range c.paths {
			targets = append(targets, target{p, canView})
			preflights = append(preflights, target{p, anyone})
		}
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			rules[m+" "+at+route] = rule{kind: c.kind, plain: true, targets: targets, check: notShared}
		}
		// CORS preflights carry no credentials: anyone gets them.
		rules["OPTIONS "+at+route] = rule{kind: c.kind, plain: true, check: notShared, targets: preflights}
	}
}
