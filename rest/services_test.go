package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

type serviceRecord struct {
	ID           string  `json:"id"`
	Key          string  `json:"key"`
	URL          string  `json:"url"`
	Kind         string  `json:"kind"`
	Enabled      bool    `json:"enabled"`
	Configurable bool    `json:"configurable"`
	Requires     string  `json:"requires"`
	Accessible   bool    `json:"accessible"`
	Permissions  *string `json:"permissions"`
	Title        string  `json:"title"`
	Description  string  `json:"description"`
	URLs         []struct {
		ServiceURL string `json:"service_url"`
		Name       string `json:"name"`
	} `json:"urls"`
}

// specServiceOwners is the spec's service table, key → owners, as the
// specification writes it.
var specServiceOwners = map[string][]string{
	"kart": {"layer"}, "csw": {"layer", "set", "catalog item"}, "spatial-query-grid": {"layer"},
	"spatial-query-tiles": {"layer"}, "spatial-query-vector": {"layer"}, "spatial-query-set": {"set"},
	"data-table": {"layer"}, "wfs": {"layer"}, "wfs-changesets": {"layer"}, "tiles": {"layer", "set"},
	"esri-map": {"layer", "set", "catalog item"}, "wmts": {"layer", "set", "catalog item"},
	"vector-tile-pmtiles": {"layer"}, "vector-tile-mvt": {"layer"}, "vector-tile-mbtiles": {"layer"},
	"vector-tile-arcgis": {"layer"}, "vector-tile-json": {"layer", "set", "catalog item"},
	"raster-pmtile": {"layer", "set", "catalog item"}, "raster-tile-json": {"layer", "set", "catalog item"},
	"copc": {"layer"}, "esri-rest-api": {"layer"}, "3d-tiles": {"layer"}, "ifc": {"layer", "set", "catalog item"},
	"kart-diff": {"layer", "set", "catalog item"}, "export": {"layer"}, "small-data": {"catalog item"},
}

// "Only these services can be enabled or disabled and have permissions
// edited: kart, export, wfs, wfs-changesets, tiles, data-table,
// spatial-query-vector, spatial-query-tiles, spatial-query-grid, and
// external services."
var configurableServices = []string{"kart", "export", "wfs", "wfs-changesets", "tiles", "data-table",
	"spatial-query-vector", "spatial-query-tiles", "spatial-query-grid"}

// "Internal UI-visibility service keys, which deliver no data: kart-ui,
// spatial-query-ui, data-table-ui, vector-tile-pmtiles-ui, copc-ui."
var uiServices = map[string]string{"kart-ui": "kart", "spatial-query-ui": "spatial-query-vector",
	"data-table-ui": "data-table", "vector-tile-pmtiles-ui": "vector-tile-pmtiles", "copc-ui": "copc"}

// Services that need geometry, which tables (layers without geometry,
// README) do not get.
var geometryServices = []string{"spatial-query-grid", "spatial-query-tiles", "spatial-query-vector", "tiles",
	"esri-map", "wmts", "vector-tile-pmtiles", "vector-tile-mvt", "vector-tile-mbtiles", "vector-tile-arcgis",
	"vector-tile-json", "raster-pmtile", "raster-tile-json", "copc", "3d-tiles",
	"spatial-query-ui", "vector-tile-pmtiles-ui", "copc-ui"}

func listServices(t *testing.T, e *env, key, url string) map[string]serviceRecord {
	t.Helper()
	r := e.Do(t, req{Path: url + "services/", Key: key})
	expectStatus(t, r, http.StatusOK)
	var ss []serviceRecord
	r.JSON(t, &ss)
	out := map[string]serviceRecord{}
	for _, s := range ss {
		out[s.ID] = s
	}
	return out
}

// serviceOwnerOf is the owner type the spec's table names for a
// collection's datasets: tables are layers (without geometry).
var serviceOwnerOf = map[string]string{"layers": "layer", "tables": "layer", "sets": "set", "items": "catalog item"}

// Every (key, owner type) pair of the spec's table, for layers, tables,
// sets and catalog items: listed where allowed, absent where not;
// configurable ones toggle, the others refuse with 405.
func TestServiceCatalogue(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		for _, d := range publishedDatasets(t, e, pub) {
			if d.name == "documents" {
				continue
			}
			t.Run(d.name, func(t *testing.T) {
				got := listServices(t, e, pub.Key, d.url)
				wantKeys := append(specServiceOwnersFor(d.name), uiFor(d.name)...)
				for key := range specServiceOwners {
					want := slices.Contains(wantKeys, key)
					if _, ok := got[key]; ok != want {
						t.Errorf("%s on %s: listed %v, want %v", key, d.name, ok, want)
					}
				}
				for key := range uiServices {
					want := slices.Contains(wantKeys, key)
					if s, ok := got[key]; ok != want || (ok && s.Kind != "ui") {
						t.Errorf("%s on %s: listed %v %+v, want %v", key, d.name, ok, s, want)
					}
				}
				if len(got) != len(wantKeys) {
					t.Errorf("%d services on %s, want %v: %v", len(got), d.name, wantKeys, got)
				}
				for key, s := range got {
					if s.Key != key || !s.Enabled || s.URL != d.url+"services/"+key+"/" {
						t.Errorf("%s: %+v", key, s)
					}
					configurable := slices.Contains(configurableServices, key)
					if s.Configurable != configurable || (s.Permissions != nil) != configurable ||
						(configurable && *s.Permissions != s.URL+"permissions/") {
						t.Errorf("%s configurable=%v permissions=%v", key, s.Configurable, s.Permissions)
					}
					r := e.Do(t, req{Method: "PUT", Path: s.URL, Key: pub.Key, Body: map[string]any{"enabled": false}})
					if !configurable {
						expectStatus(t, r, http.StatusMethodNotAllowed)
						if !strings.Contains(r.Detail(t), "cannot be enabled") {
							t.Errorf("%s refusal: %s", key, r.Body)
						}
						continue
					}
					expectStatus(t, r, http.StatusOK)
					var after serviceRecord
					r.JSON(t, &after)
					if after.Enabled {
						t.Errorf("%s still enabled", key)
					}
				}
				probe, absent := "kart", "small-data"
				switch d.name {
				case "layers", "tables":
					// UI keys follow their data service.
					got = listServices(t, e, pub.Key, d.url)
					if s, ok := got["data-table-ui"]; !ok || s.Enabled {
						t.Errorf("data-table-ui after disabling data-table: %+v", s)
					}
					r := e.Do(t, req{Method: "PUT", Path: d.url + "services/kart/", Key: pub.Key, Body: map[string]any{"enabled": true}})
					expectStatus(t, r, http.StatusOK)
					if !listServices(t, e, pub.Key, d.url)["kart-ui"].Enabled {
						t.Error("kart-ui does not follow kart")
					}
				case "sets":
					probe = "tiles"
					if listServices(t, e, pub.Key, d.url)["tiles"].Enabled {
						t.Error("the set's tiles still enabled")
					}
				case "items":
					// Catalog items have no configurable built-in service.
					probe, absent = "csw", "kart"
				}
				// Bad input and unknown services.
				expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "services/" + probe + "/", Key: pub.Key, Body: map[string]any{}}), http.StatusBadRequest)
				expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "services/" + probe + "/", Key: pub.Key, Body: map[string]any{"enabled": "yes"}}), http.StatusBadRequest)
				expectStatus(t, e.Do(t, req{Path: d.url + "services/" + absent + "/", Key: pub.Key}), http.StatusNotFound)
				expectStatus(t, e.Do(t, req{Path: d.url + "services/nope/", Key: pub.Key}), http.StatusNotFound)
				// Only the dataset's admins switch services.
				other := e.NewUser(t, "Other")
				authMatrix(t, e, req{Method: "PUT", Path: d.url + "services/" + probe + "/", Body: map[string]any{"enabled": true}}, writeScope(d.name), other)
				// GraphQL lists the same services.
				q := map[string]string{
					"layers": `query($id: ID!) { layer(id: $id) { services { id enabled configurable } } }`,
					"tables": `query($id: ID!) { layer(id: $id) { services { id enabled configurable } } }`,
					"sets":   `query($id: ID!) { set(id: $id) { services { id enabled configurable } } }`,
					"items":  `query($cid: String!) { catalogItem(id: $cid) { services { id enabled configurable } } }`,
				}[d.name]
				g := e.GraphQL(t, pub.Key, q, d.gqlVars())
				if len(g.Errors) > 0 || strings.Count(string(g.Data), `"id"`) != len(listServices(t, e, pub.Key, d.url)) {
					t.Fatalf("GraphQL services %s %v", g.Data, g.Errors)
				}
			})
		}
	})
}

// specServiceOwnersFor lists the built-in keys of the spec's table a
// collection's datasets get.
func specServiceOwnersFor(collection string) []string {
	var out []string
	for key, owners := range specServiceOwners {
		if slices.Contains(owners, serviceOwnerOf[collection]) && (collection != "tables" || !slices.Contains(geometryServices, key)) {
			out = append(out, key)
		}
	}
	return out
}

// uiFor lists the UI keys a collection's datasets get: layers all, tables
// those without geometry, others none.
func uiFor(collection string) []string {
	var out []string
	for key := range uiServices {
		if collection == "layers" || (collection == "tables" && !slices.Contains(geometryServices, key)) {
			out = append(out, key)
		}
	}
	return out
}

// The spec's service-permission rules 1 to 3, with users holding view,
// download and admin on the owner, in and out of the listed groups.
func TestServicePermissionRules(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		root := e.NewUser(t, "Root", servertest.SiteAdmin)
		listed := createGroup(t, e, root, map[string]any{"name": "Listed", "country": "NZ"})
		viewIn, viewOut := e.NewUser(t, "ViewIn"), e.NewUser(t, "ViewOut")
		downIn, downOut := e.NewUser(t, "DownIn"), e.NewUser(t, "DownOut")
		adminOut, stranger := e.NewUser(t, "AdminOut"), e.NewUser(t, "Stranger")
		addMember(t, e, root, listed.ID, viewIn.ID, "member")
		addMember(t, e, root, listed.ID, downIn.ID, "member")
		d := publishedDatasets(t, e, pub)[0]
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "admin", "user": pub.ID},
			{"permission": "view", "user": viewIn.ID}, {"permission": "view", "user": viewOut.ID},
			{"permission": "download", "user": downIn.ID}, {"permission": "download", "user": downOut.ID},
			{"permission": "admin", "user": adminOut.ID},
		}}), http.StatusOK)

		users := []*user{viewIn, viewOut, downIn, downOut, adminOut, stranger}
		check := func(t *testing.T, service string, want []bool) {
			t.Helper()
			for i, u := range users {
				// The owner's admin asks the access endpoint about each role...
				r := e.Do(t, req{Path: fmt.Sprintf("%sservices/%s/permissions/user.%d/access/", d.url, service, u.ID), Key: pub.Key})
				expectStatus(t, r, http.StatusOK)
				var a struct{ Access bool }
				r.JSON(t, &a)
				// ...and each user sees the same in the service's accessible.
				var s serviceRecord
				if rs := e.Do(t, req{Path: d.url + "services/" + service + "/", Key: u.Key}); rs.Status == http.StatusOK {
					rs.JSON(t, &s)
				}
				g := e.GraphQL(t, pub.Key, `query($id: ID!, $s: String!, $role: String!) { serviceAccess(type: LAYER, id: $id, serviceID: $s, role: $role) }`,
					map[string]any{"id": d.id, "s": service, "role": fmt.Sprintf("user.%d", u.ID)})
				gql := strings.Contains(string(g.Data), "true")
				if a.Access != want[i] || s.Accessible != want[i] || gql != want[i] {
					t.Errorf("%s for %s: access endpoint %v, accessible %v, GraphQL %v; want %v", service, u.FirstName, a.Access, s.Accessible, gql, want[i])
				}
			}
		}
		// Rule 1, empty lists: download gives wfs (download class), view
		// gives tiles (view class).
		//                         viewIn viewOut downIn downOut adminOut stranger
		check(t, "wfs", []bool{false, false, true, true, true, false})
		check(t, "tiles", []bool{true, true, true, true, true, false})
		// Rules 2 and 3: only the listed group, plus owner admins; listed
		// members must still hold the owner permission the service needs.
		for _, svc := range []string{"wfs", "tiles"} {
			r := e.Do(t, req{Method: "PUT", Path: d.url + "services/" + svc + "/permissions/", Key: pub.Key,
				Body: []map[string]any{{"group": listed.ID, "permission": "access"}}})
			expectStatus(t, r, http.StatusOK)
			var ps []struct {
				ID         string `json:"id"`
				Permission string `json:"permission"`
			}
			r.JSON(t, &ps)
			if len(ps) != 1 || ps[0].ID != fmt.Sprintf("group.%d", listed.ID) || ps[0].Permission != "access" {
				t.Fatalf("permissions %s", r.Body)
			}
		}
		check(t, "wfs", []bool{false, false, true, false, true, false})
		check(t, "tiles", []bool{true, false, true, false, true, false})
		// The group role itself: its members by membership alone hold no
		// grant on the layer, so rule 3 refuses them.
		r := e.Do(t, req{Path: fmt.Sprintf("%sservices/tiles/permissions/group.%d/access/", d.url, listed.ID), Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"access":false`) {
			t.Fatalf("group role %s", r.Body)
		}
		// A user grant in the list works like a group one.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "services/tiles/permissions/", Key: pub.Key,
			Body: []map[string]any{{"user": viewOut.ID, "permission": "access"}}}), http.StatusOK)
		check(t, "tiles", []bool{false, true, false, false, true, false})
		// An empty list inherits from the owner again.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "services/tiles/permissions/", Key: pub.Key, Body: []any{}}), http.StatusOK)
		check(t, "tiles", []bool{true, true, true, true, true, false})
		// A disabled service serves nobody, admins included.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "services/tiles/", Key: pub.Key, Body: map[string]any{"enabled": false}}), http.StatusOK)
		check(t, "tiles", []bool{false, false, false, false, false, false})

		// Bad input, roles and callers.
		for _, body := range []any{
			[]map[string]any{{"group": listed.ID, "permission": "view"}},
			[]map[string]any{{"permission": "access"}},
			[]map[string]any{{"group": 99999, "permission": "access"}},
			map[string]any{"group": listed.ID},
		} {
			expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "services/wfs/permissions/", Key: pub.Key, Body: body}), http.StatusBadRequest)
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "services/csw/permissions/", Key: pub.Key, Body: []any{}}), http.StatusMethodNotAllowed)
		expectStatus(t, e.Do(t, req{Path: d.url + "services/wfs/permissions/robot.1/access/", Key: pub.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: d.url + "services/wfs/permissions/user.99999/access/", Key: pub.Key}), http.StatusNotFound)
		// Others ask about themselves only.
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("%sservices/wfs/permissions/user.%d/access/", d.url, downIn.ID), Key: downIn.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("%sservices/wfs/permissions/user.%d/access/", d.url, viewIn.ID), Key: downIn.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Path: d.url + "services/wfs/permissions/", Key: downIn.Key}), http.StatusForbidden)
		authMatrix(t, e, req{Method: "PUT", Path: d.url + "services/wfs/permissions/", Body: []any{}}, "layers:write", downIn)
	})
}

// External service templates and attachments, with the spec's rule 4 and
// template substitution.
func TestExternalServices(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		root := e.NewUser(t, "Root", servertest.SiteAdmin)
		other := e.NewUser(t, "Other")
		d := publishedDatasets(t, e, pub)[0]
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.draftURL, Key: pub.Key, Body: map[string]any{"name": "Ōtautahi roads & rail"}}), http.StatusOK)
		r := e.Do(t, req{Method: "POST", Path: d.draftURL + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		waitPublish(t, e, pub.Key, r.Header.Get("Location"))
		template := map[string]any{
			"title": "City tiles", "short_name": "city", "description": "Tiles from the city",
			"template_urls": []map[string]any{
				{"service_url": "https://tiles.example.com/{shortname}/{z}/{x}/{y}.png", "name": "XYZ"},
				{"service_url": "https://maps.example.com/wms?layers=layer-{id}&title={title}"},
			},
			"scope": []string{"layer", "table"}, "enabled": true, "access_policy": "all-users",
		}
		templates := "/site/external-service-templates/"

		// Rule 4: off by default, so 404 for everyone, site admins too.
		expectStatus(t, e.Do(t, req{Path: templates, Key: root.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: templates, Key: root.Key, Body: template}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d.url + "external-services/", Key: pub.Key, Body: map[string]any{"template_id": 1}}), http.StatusNotFound)
		// The switch is a site setting only site administrators change.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: "/site/settings/", Key: other.Key, Body: map[string]any{"external_services": true}}), http.StatusForbidden)
		r = e.Do(t, req{Method: "PUT", Path: "/site/settings/", Key: root.Key, Body: map[string]any{"external_services": true}})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"external_services":true`) {
			t.Fatalf("settings %s", r.Body)
		}
		// On: authenticated non-administrators get 403, anonymous 401.
		expectStatus(t, e.Do(t, req{Path: templates, Key: other.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: templates, Key: pub.Key, Body: template}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Path: templates}), http.StatusUnauthorized)

		// Template validation.
		for name, change := range map[string]map[string]any{
			"NoURLs":      {"template_urls": []any{}},
			"FourURLs":    {"template_urls": []map[string]any{{"service_url": "https://a.example.com/"}, {"service_url": "https://b.example.com/"}, {"service_url": "https://c.example.com/"}, {"service_url": "https://d.example.com/"}}},
			"NotHTTP":     {"template_urls": []map[string]any{{"service_url": "javascript:alert(1)"}}},
			"NoTitle":     {"title": ""},
			"BadScope":    {"scope": []string{"planet"}},
			"NoScope":     {"scope": []string{}},
			"BadPolicy":   {"access_policy": "friends"},
			"RelativeURL": {"template_urls": []map[string]any{{"service_url": "/tiles/{z}/{x}/{y}"}}},
		} {
			body := map[string]any{}
			for k, v := range template {
				body[k] = v
			}
			for k, v := range change {
				body[k] = v
			}
			if r := e.Do(t, req{Method: "POST", Path: templates, Key: root.Key, Body: body}); r.Status != http.StatusBadRequest {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		r = e.Do(t, req{Method: "POST", Path: templates, Key: root.Key, Body: template})
		expectStatus(t, r, http.StatusCreated)
		var tpl struct {
			ID  int    `json:"id"`
			URL string `json:"url"`
		}
		r.JSON(t, &tpl)
		if tpl.ID == 0 || r.Header.Get("Location") != tpl.URL {
			t.Fatalf("template %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: tpl.URL, Key: root.Key}), http.StatusOK)
		setOnly := map[string]any{}
		for k, v := range template {
			setOnly[k] = v
		}
		setOnly["scope"] = []string{"set"}
		r = e.Do(t, req{Method: "POST", Path: templates, Key: root.Key, Body: setOnly})
		expectStatus(t, r, http.StatusCreated)
		var setTpl struct{ ID int }
		r.JSON(t, &setTpl)

		// Attaching needs admin on the dataset and a template that fits.
		attach := map[string]any{"template_id": tpl.ID, "enabled": true}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d.url + "external-services/", Key: other.Key, Body: attach}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d.url + "external-services/", Key: pub.Key, Body: map[string]any{"template_id": setTpl.ID}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d.url + "external-services/", Key: pub.Key, Body: map[string]any{"template_id": 99999}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d.url + "external-services/", Key: pub.Key, Body: map[string]any{}}), http.StatusBadRequest)
		r = e.Do(t, req{Method: "POST", Path: d.url + "external-services/", Key: pub.Key, Body: attach})
		expectStatus(t, r, http.StatusCreated)
		var s serviceRecord
		r.JSON(t, &s)
		wantURLs := []string{
			"https://tiles.example.com/%C5%8Dtautahi-roads-rail/{z}/{x}/{y}.png",
			fmt.Sprintf("https://maps.example.com/wms?layers=layer-%d&title=%%C5%%8Ctautahi%%20roads%%20%%26%%20rail", d.id),
		}
		if s.Kind != "external" || s.Key != "external" || s.Description != "Tiles from the city" || s.ID == "" || len(s.URLs) != 2 ||
			s.URLs[0].ServiceURL != wantURLs[0] || s.URLs[1].ServiceURL != wantURLs[1] || s.URLs[0].Name != "XYZ" || !s.Enabled {
			t.Fatalf("attached %s\nwant URLs %v", r.Body, wantURLs)
		}
		if r.Header.Get("Location") != s.URL {
			t.Fatalf("Location %q, url %q", r.Header.Get("Location"), s.URL)
		}
		// Listed like built-in services, last, with a string id.
		ss := listServices(t, e, pub.Key, d.url)
		if got, ok := ss[s.ID]; !ok || got.Kind != "external" {
			t.Fatalf("services %v", ss)
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: s.URL, Key: pub.Key, Body: map[string]any{"enabled": false}}), http.StatusOK)
		if listServices(t, e, pub.Key, d.url)[s.ID].Enabled {
			t.Fatal("external service still enabled")
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: s.URL, Key: pub.Key, Body: map[string]any{"enabled": true}}), http.StatusOK)
		// Switching the feature off hides them again: 404, and unusable.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: "/site/settings/", Key: root.Key, Body: map[string]any{"external_services": false}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: s.URL, Key: pub.Key}), http.StatusNotFound)
		if listServices(t, e, pub.Key, d.url)[s.ID].Enabled {
			t.Fatal("external service enabled while the feature is off")
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: "/site/settings/", Key: root.Key, Body: map[string]any{"external_services": true}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: s.URL, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: s.URL, Key: pub.Key}), http.StatusNotFound)
		// Deleting a template removes what was made from it.
		r = e.Do(t, req{Method: "POST", Path: d.url + "external-services/", Key: pub.Key, Body: attach})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &s)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: tpl.URL, Key: root.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: s.URL, Key: pub.Key}), http.StatusNotFound)
	})
}
