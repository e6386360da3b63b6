package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/datasetservice"
	"github.com/geopub/geopub/internal/server/servertest"
)

// The services of a catalog item (spec, Services: GET
// /items/{catalogitem_id}/services/), the per-service endpoints of
// layers and sets on items too, and external services attached to items.
func TestCatalogItemServices(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		stranger := e.NewUser(t, "Stranger")
		root := e.NewUser(t, "Root", servertest.SiteAdmin)
		it := createItem(t, e, pub, map[string]any{"title": "Road register", "link_url": "https://example.org/roads"})
		it = publishItem(t, e, pub, it.ThisVersion)
		hidden := createItem(t, e, pub, map[string]any{"title": "Hidden", "link_url": "https://example.org/h"})
		// Readers view the item; nobody else sees it.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: it.URL + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "admin", "user": pub.ID}, {"permission": "view", "user": reader.ID}}}), http.StatusOK)

		// The list: the spec's catalog item keys, in its order, each
		// usable by whoever views the item, but kart-diff: a diff from
		// nothing is the data itself, so it needs download, as kart and
		// wfs do (docs/decisions.md).
		r := e.Do(t, req{Path: it.URL + "services/", Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		var ss []serviceRecord
		r.JSON(t, &ss)
		var keys []string
		for _, s := range ss {
			keys = append(keys, s.Key)
			requires, accessible := "view", true
			if s.Key == "kart-diff" {
				requires, accessible = "download", false
			}
			if s.URL != it.URL+"services/"+s.Key+"/" || s.Kind != "builtin" || s.Requires != requires || s.Accessible != accessible || s.Configurable || s.Permissions != nil {
				t.Errorf("service %+v", s)
			}
		}
		want := "csw esri-map wmts vector-tile-json raster-pmtile raster-tile-json ifc kart-diff small-data"
		if strings.Join(keys, " ") != want {
			t.Fatalf("keys %v, want %s", keys, want)
		}
		r = e.Do(t, req{Path: it.URL + "services/small-data/", Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		var one serviceRecord
		r.JSON(t, &one)
		if one.ID != "small-data" || one.URL != it.URL+"services/small-data/" {
			t.Fatalf("one %s", r.Body)
		}
		// Not configurable: no permission list, no switching.
		expectStatus(t, e.Do(t, req{Path: it.URL + "services/csw/permissions/", Key: pub.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: it.URL + "services/csw/permissions/", Key: pub.Key, Body: []any{}}), http.StatusMethodNotAllowed)

		// Who sees the item sees its services; others get 404, anonymous
		// callers included; a token without catalog gets 401 naming it.
		for _, c := range []struct {
			key, path string
			want      int
		}{
			{"", it.URL + "services/", http.StatusNotFound},
			{stranger.Key, it.URL + "services/", http.StatusNotFound},
			{reader.Key, hidden.URL + "services/", http.StatusNotFound},
			{pub.Key, hidden.URL + "services/", http.StatusOK},
			{reader.Key, "/items/c999999/services/", http.StatusNotFound},
		} {
			expectStatus(t, e.Do(t, req{Path: c.path, Key: c.key}), c.want)
		}
		expectScope(t, e, req{Path: it.URL + "services/"}, reader, "catalog")

		// The access check: admins ask about anyone, others about
		// themselves only.
		access := func(key string, u *user) int {
			r := e.Do(t, req{Path: fmt.Sprintf("%sservices/wmts/permissions/user.%d/access/", it.URL, u.ID), Key: key})
			if r.Status == http.StatusOK && !strings.Contains(string(r.Body), fmt.Sprintf(`"access":%v`, u != stranger)) {
				t.Errorf("access of %s: %s", u.FirstName, r.Body)
			}
			return r.Status
		}
		if access(pub.Key, reader) != http.StatusOK || access(pub.Key, stranger) != http.StatusOK ||
			access(reader.Key, reader) != http.StatusOK || access(reader.Key, pub) != http.StatusForbidden ||
			access(stranger.Key, stranger) != http.StatusNotFound || access("", reader) != http.StatusNotFound {
			t.Fatal("access check answers")
		}
		g := e.GraphQL(t, pub.Key, `query($id: ID!, $role: String!) { serviceAccess(type: CATALOG_ITEM, id: $id, serviceID: "wmts", role: $role) }`,
			map[string]any{"id": strings.TrimPrefix(it.ID, "c"), "role": fmt.Sprintf("user.%d", reader.ID)})
		if len(g.Errors) > 0 || string(g.Data) != `{"serviceAccess":true}` {
			t.Fatalf("GraphQL access %s %v", g.Data, g.Errors)
		}

		// External services attach to items: {id} is the item's public id.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: "/site/settings/", Key: root.Key, Body: map[string]any{"external_services": true}}), http.StatusOK)
		template := func(scope string) int {
			r := e.Do(t, req{Method: "POST", Path: "/site/external-service-templates/", Key: root.Key, Body: map[string]any{
				"title": "Mirror", "template_urls": []map[string]any{{"service_url": "https://mirror.example.com/{id}/{shortname}/{z}/{x}/{y}.png"}},
				"scope": []string{scope}}})
			expectStatus(t, r, http.StatusCreated)
			var tpl struct{ ID int }
			r.JSON(t, &tpl)
			return tpl.ID
		}
		forItems, forLayers := template("catalog_item"), template("layer")
		attach := req{Method: "POST", Path: it.URL + "external-services/", Body: map[string]any{"template_id": forItems}}
		authMatrix(t, e, attach, "items:write", reader)
		before := e.Store.Client.DatasetService.Query().CountX(t.Context())
		for _, body := range []map[string]any{{"template_id": forLayers}, {"template_id": 99999}, {}, {"template_id": "one"}} {
			r := e.Do(t, req{Method: "POST", Path: it.URL + "external-services/", Key: pub.Key, Body: body})
			if r.Status != http.StatusBadRequest || len(r.Body) < 10 {
				t.Errorf("attach %v: %d %s", body, r.Status, r.Body)
			}
		}
		if e.Store.Client.DatasetService.Query().CountX(t.Context()) != before {
			t.Fatal("a refused attachment wrote a service")
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: hidden.URL + "external-services/", Key: stranger.Key, Body: map[string]any{"template_id": forItems}}), http.StatusNotFound)
		attach.Key = pub.Key
		r = e.Do(t, attach)
		expectStatus(t, r, http.StatusCreated)
		var ext serviceRecord
		r.JSON(t, &ext)
		if ext.Kind != "external" || ext.URL != it.URL+"external-services/"+ext.ID+"/" || r.Header.Get("Location") != ext.URL ||
			len(ext.URLs) != 1 || ext.URLs[0].ServiceURL != "https://mirror.example.com/"+it.ID+"/road-register/{z}/{x}/{y}.png" ||
			ext.Permissions == nil || *ext.Permissions != it.URL+"services/"+ext.ID+"/permissions/" {
			t.Fatalf("attached %s", r.Body)
		}
		if got := listServices(t, e, reader.Key, it.URL); !got[ext.ID].Accessible {
			t.Fatalf("external service %+v", got[ext.ID])
		}

		// Its permission list: only listed roles (and item admins) use it.
		perms := *ext.Permissions
		authMatrix(t, e, req{Method: "PUT", Path: perms, Body: []any{}}, "items:write", reader)
		expectStatus(t, e.Do(t, req{Path: perms, Key: reader.Key}), http.StatusForbidden)
		before = e.Store.Client.ServicePermission.Query().CountX(t.Context())
		for _, body := range []any{
			[]map[string]any{{"group": 99999, "permission": "access"}},
			[]map[string]any{{"user": reader.ID, "permission": "view"}},
			[]map[string]any{{"user": reader.ID, "permission": "access"}, {"user": reader.ID, "permission": "access"}},
			map[string]any{"user": reader.ID},
		} {
			expectStatus(t, e.Do(t, req{Method: "PUT", Path: perms, Key: pub.Key, Body: body}), http.StatusBadRequest)
		}
		if e.Store.Client.ServicePermission.Query().CountX(t.Context()) != before {
			t.Fatal("a refused permission list was written")
		}
		other := e.NewUser(t, "Other")
		expectStatus(t, e.Do(t, req{Method: "POST", Path: it.URL + "permissions/", Key: pub.Key, Body: map[string]any{"permission": "view", "user": other.ID}}), http.StatusCreated)
		r = e.Do(t, req{Method: "PUT", Path: perms, Key: pub.Key, Body: []map[string]any{{"user": other.ID, "permission": "access"}}})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), fmt.Sprintf(`"id":"user.%d","permission":"access"`, other.ID)) {
			t.Fatalf("permissions %s", r.Body)
		}
		for u, want := range map[*user]bool{other: true, reader: false, pub: true} {
			r := e.Do(t, req{Path: fmt.Sprintf("%suser.%d/access/", perms, u.ID), Key: pub.Key})
			expectStatus(t, r, http.StatusOK)
			if !strings.Contains(string(r.Body), fmt.Sprintf(`"access":%v`, want)) {
				t.Errorf("access of %s: %s", u.FirstName, r.Body)
			}
		}

		// Switch it off and on; the GraphQL list agrees.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: ext.URL, Key: reader.Key, Body: map[string]any{"enabled": false}}), http.StatusForbidden)
		r = e.Do(t, req{Method: "PUT", Path: ext.URL, Key: pub.Key, Body: map[string]any{"enabled": false}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &one)
		if one.Enabled || listServices(t, e, pub.Key, it.URL)[ext.ID].Enabled {
			t.Fatalf("still enabled: %s", r.Body)
		}
		g = e.GraphQL(t, pub.Key, `query($cid: String!) { catalogItem(id: $cid) { services { id enabled kind } } }`, map[string]any{"cid": it.ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), fmt.Sprintf(`{"id":"%s","enabled":false,"kind":"external"}`, ext.ID)) ||
			strings.Count(string(g.Data), `"id"`) != 10 {
			t.Fatalf("GraphQL services %s %v", g.Data, g.Errors)
		}

		// Deleting the item forgets its services and their permissions.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: it.URL, Key: pub.Key}), http.StatusNoContent)
		if n := e.Store.Client.DatasetService.Query().Where(datasetservice.OwnerKindEQ(datasetservice.OwnerKindCatalogItem)).CountX(t.Context()); n != 0 {
			t.Fatalf("%d services left", n)
		}
		if n := e.Store.Client.ServicePermission.Query().CountX(t.Context()); n != 0 {
			t.Fatalf("%d service permissions left", n)
		}
	})
}
