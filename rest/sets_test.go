package rest_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/server/servertest"
)

// Sets over REST: create with ordered members, read (Expand: items,
// OPTIONS), publish through a publish group, drafts, edits that keep the
// order, version rules (201, 405, 409, 404), lists, delete; with the auth
// answers of every endpoint.
func TestSetLifecycle(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		other := e.NewUser(t, "Other")
		roads := seedLayer(t, e, pub.User, layer.TypeLayer, "Roads", false)
		rivers := seedLayer(t, e, pub.User, layer.TypeLayer, "Rivers", false)
		codes := seedLayer(t, e, other.User, layer.TypeTable, "Codes", false)
		hidden := seedLayer(t, e, other.User, layer.TypeLayer, "Hidden draft", true)

		// Auth of the list and create endpoints.
		authMatrix(t, e, req{Method: "POST", Path: "/sets/", Body: map[string]any{"title": "x"}}, "sets:write", nil)
		expectScope(t, e, req{Method: "POST", Path: "/sets/", Body: map[string]any{"title": "x"}}, pub, "sets:write")
		expectScope(t, e, req{Path: "/sets/"}, pub, "sets:read")

		// Bad input: a clear 400 naming the field and the item; nothing written.
		for name, c := range map[string]struct {
			body map[string]any
			want string
		}{
			"NoTitle":     {map[string]any{"items": []int{roads.ID}}, "title"},
			"BlankTitle":  {map[string]any{"title": "  "}, "title"},
			"Datasource":  {map[string]any{"title": "x", "items": []string{e.API + "/sources/1/datasources/2/"}}, "Item 1"},
			"Document":    {map[string]any{"title": "x", "items": []any{roads.ID, e.API + "/documents/3/"}}, "Item 2"},
			"Unknown":     {map[string]any{"title": "x", "items": []int{roads.ID, 99999}}, "99999"},
			"Invisible":   {map[string]any{"title": "x", "items": []string{memberURL(e, hidden)}}, fmt.Sprint(hidden.ID)},
			"Duplicate":   {map[string]any{"title": "x", "items": []any{roads.ID, memberURL(e, rivers), memberURL(e, roads)}}, "Item 3 repeats item 1"},
			"NotAList":    {map[string]any{"title": "x", "items": "roads"}, "items"},
			"VersionURL":  {map[string]any{"title": "x", "items": []string{memberURL(e, roads) + "versions/1/"}}, "Item 1"},
			"NegativeInt": {map[string]any{"title": "x", "items": []int{-4}}, "Item 1"},
		} {
			t.Run(name, func(t *testing.T) {
				before := e.Store.Client.Set.Query().CountX(t.Context())
				r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: c.body})
				expectStatus(t, r, http.StatusBadRequest)
				if !strings.Contains(string(r.Body), c.want) {
					t.Fatalf("body %s does not mention %q", r.Body, c.want)
				}
				if e.Store.Client.Set.Query().CountX(t.Context()) != before {
					t.Fatal("a refused create wrote a set")
				}
			})
		}

		// Create: 201 with an absolute Location at the set, a draft with the
		// members in the order given, tables and layers together.
		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{
			"title": "Hydrography", "description": "Water <b>things</b>",
			"items": []any{memberURL(e, codes), memberURL(e, roads), fmt.Sprint(rivers.ID)}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)
		loc := r.Header.Get("Location")
		if !strings.HasPrefix(loc, "http://") || loc != s.URL || loc != fmt.Sprintf("%s/sets/%d/", e.API, s.ID) {
			t.Fatalf("Location %q, url %q", loc, s.URL)
		}
		order1 := []string{memberURL(e, codes), memberURL(e, roads), memberURL(e, rivers)}
		if s.Type != "set" || s.Title != "Hydrography" || s.PublishedVersion != nil || s.ThisVersion != s.LatestVersion ||
			s.Version.State != "draft" || s.User == nil || s.User.ID != pub.ID || s.Group != nil ||
			!strings.Contains(s.DescriptionHTML, "&lt;b&gt;") || s.Permissions != s.URL+"permissions/" {
			t.Fatalf("created %s", r.Body)
		}
		if got := s.itemURLs(t); !reflect.DeepEqual(got, order1) {
			t.Fatalf("items %v, want %v", got, order1)
		}
		if got := getSet(t, e, pub.Key, loc, nil); !reflect.DeepEqual(got.itemURLs(t), order1) || got.ThisVersion != s.ThisVersion {
			t.Fatalf("GET Location %+v", got)
		}
		draftURL := s.ThisVersion

		// Expand: items inlines the members in the layer-list summary form.
		r = e.Do(t, req{Path: s.URL, Key: pub.Key, Header: map[string]string{"Expand": "items"}})
		expectStatus(t, r, http.StatusOK)
		var ex struct {
			Items []struct {
				ID   int
				URL  string
				Type string
				Name string
			}
		}
		r.JSON(t, &ex)
		if len(ex.Items) != 3 || ex.Items[0].ID != codes.ID || ex.Items[0].Type != "table" || ex.Items[0].Name != "Codes" ||
			ex.Items[1].URL != memberURL(e, roads) || ex.Items[2].Type != "layer" {
			t.Fatalf("expanded %s", r.Body)
		}
		r = e.Do(t, req{Method: "OPTIONS", Path: s.URL, Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"name":"Set"`) || !strings.Contains(string(r.Body), `"expansions":["items"]`) {
			t.Fatalf("OPTIONS %s", r.Body)
		}

		// Unpublished: only editors see it.
		expectStatus(t, e.Do(t, req{Path: s.URL, Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: s.URL}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: s.URL + "versions/published/", Key: pub.Key}), http.StatusNotFound)
		if d := getSet(t, e, pub.Key, s.URL+"versions/draft/", nil); d.ThisVersion != draftURL {
			t.Fatalf("draft %+v", d)
		}
		r = e.Do(t, req{Path: "/sets/drafts/", Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("X-Resource-Range") != "0-1/1" || !strings.Contains(string(r.Body), `"title":"Hydrography"`) {
			t.Fatalf("drafts %s %s", r.Header.Get("X-Resource-Range"), r.Body)
		}
		r = e.Do(t, req{Path: "/sets/drafts/", Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("X-Resource-Range") != "0-0/0" {
			t.Fatalf("reader drafts %s", r.Header.Get("X-Resource-Range"))
		}
		// The draft of a never-published set is all it has.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draftURL, Key: pub.Key}), http.StatusConflict)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)

		// Someone else's set: not found for writes, whatever the role.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: draftURL + "publish/", Key: other.Key, Body: map[string]any{}}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: draftURL, Key: other.Key, Body: map[string]any{"title": "Mine"}}), http.StatusNotFound)
		expectScope(t, e, req{Method: "POST", Path: draftURL + "publish/", Body: map[string]any{}}, pub, "sets:write")
		authMatrix(t, e, req{Method: "POST", Path: draftURL + "publish/", Body: map[string]any{}}, "sets:write", nil)

		// Publish: 201, absolute Location of the publish group, which
		// completed at once (a set version has nothing to import).
		r = e.Do(t, req{Method: "POST", Path: draftURL + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		gloc := r.Header.Get("Location")
		if !strings.HasPrefix(gloc, e.API+"/publish/") {
			t.Fatalf("publish Location %q", gloc)
		}
		r = e.Do(t, req{Path: gloc, Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		var g struct {
			State string
			Items []string
		}
		r.JSON(t, &g)
		if g.State != "completed" || !reflect.DeepEqual(g.Items, []string{draftURL}) {
			t.Fatalf("publish group %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: draftURL + "publish/", Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)

		// Published: readers and anonymous callers see it, members in order.
		s = getSet(t, e, reader.Key, s.URL, nil)
		if s.PublishedVersion == nil || *s.PublishedVersion != draftURL || s.Version.State != "published" || !reflect.DeepEqual(s.itemURLs(t), order1) {
			t.Fatalf("published %+v", s)
		}
		getSet(t, e, "", s.URL, nil)
		r = e.Do(t, req{Path: "/sets/?q=hydro", Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("X-Resource-Range") != "0-1/1" || !strings.Contains(r.Header.Get("Link"), `rel="sort-name"`) {
			t.Fatalf("list %s %s", r.Header, r.Body)
		}
		if r := e.Do(t, req{Path: "/sets/?sort=popularity", Key: reader.Key}); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"sort"`) {
			t.Fatalf("bad sort: %d %s", r.Status, r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: "/sets/?page_size=201", Key: reader.Key}), http.StatusBadRequest)

		// The published version cannot change.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: draftURL, Key: pub.Key, Body: map[string]any{"title": "x"}}), http.StatusMethodNotAllowed)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draftURL, Key: pub.Key}), http.StatusMethodNotAllowed)
		expectStatus(t, e.Do(t, req{Path: s.URL + "versions/draft/", Key: pub.Key}), http.StatusNotFound)

		// A new draft: 201 at its version URL, a copy of the published
		// members; a second is a conflict.
		expectScope(t, e, req{Method: "POST", Path: s.URL + "versions/", Body: map[string]any{}}, pub, "sets:write")
		r = e.Do(t, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var d setRecord
		r.JSON(t, &d)
		if d.Version.State != "draft" || r.Header.Get("Location") != d.ThisVersion || d.ThisVersion == draftURL ||
			!reflect.DeepEqual(d.itemURLs(t), order1) || *d.PublishedVersion != draftURL {
			t.Fatalf("new draft %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)

		// Edit the draft: new order, one member dropped; readers still see
		// the published order.
		order2 := []string{memberURL(e, rivers), memberURL(e, codes)}
		r = e.Do(t, req{Method: "PUT", Path: d.ThisVersion, Key: pub.Key, Body: map[string]any{"title": "Hydrography 2", "items": order2}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &d)
		if d.Title != "Hydrography 2" || !reflect.DeepEqual(d.itemURLs(t), order2) {
			t.Fatalf("edited %s", r.Body)
		}
		for body, want := range map[string]string{`{"items": [%[1]d, %[1]d]}`: "repeats", `{"title": ""}`: "title", `{"items": [%[1]d, 99999]}`: "Item 2"} {
			r := e.Do(t, req{Method: "PUT", Path: d.ThisVersion, Key: pub.Key, Body: fmt.Sprintf(body, roads.ID)})
			if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), want) {
				t.Fatalf("PUT %s: %d %s", body, r.Status, r.Body)
			}
		}
		// A title-only edit keeps the members.
		r = e.Do(t, req{Method: "PUT", Path: d.ThisVersion, Key: pub.Key, Body: map[string]any{"description": "Rivers first"}})
		expectStatus(t, r, http.StatusOK)
		if r.JSON(t, &d); !reflect.DeepEqual(d.itemURLs(t), order2) {
			t.Fatalf("description edit changed members: %s", r.Body)
		}
		if got := getSet(t, e, reader.Key, s.URL, nil); got.Title != "Hydrography" || !reflect.DeepEqual(got.itemURLs(t), order1) {
			t.Fatalf("published changed by the draft: %+v", got)
		}
		expectStatus(t, e.Do(t, req{Path: d.ThisVersion, Key: reader.Key}), http.StatusNotFound)

		// Publish it through POST /publish/ with the set version URL.
		r = e.Do(t, req{Method: "POST", Path: "/publish/", Key: pub.Key, Body: map[string]any{"items": []string{d.ThisVersion}, "reference": "sets-1"}})
		expectStatus(t, r, http.StatusCreated)
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" || g["reference"] != "sets-1" {
			t.Fatalf("publish %+v", g)
		}
		if got := getSet(t, e, reader.Key, s.URL, nil); got.Title != "Hydrography 2" || !reflect.DeepEqual(got.itemURLs(t), order2) || got.ThisVersion != d.ThisVersion {
			t.Fatalf("after second publish %+v", got)
		}
		if got := getSet(t, e, reader.Key, draftURL, nil); got.Version.State != "superseded" || !reflect.DeepEqual(got.itemURLs(t), order1) {
			t.Fatalf("superseded version %+v", got)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/publish/", Key: pub.Key, Body: map[string]any{"items": []string{d.ThisVersion}}}), http.StatusConflict)

		// Versions, newest first.
		r = e.Do(t, req{Path: s.URL + "versions/", Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		var vs []struct {
			ID  int
			URL string
		}
		r.JSON(t, &vs)
		if len(vs) != 2 || vs[0].URL != d.ThisVersion || vs[1].URL != draftURL || r.Header.Get("X-Resource-Range") != "0-2/2" {
			t.Fatalf("versions %s", r.Body)
		}

		// Discard a draft: 204, then 409.
		r = e.Do(t, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var d3 setRecord
		r.JSON(t, &d3)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: d3.ThisVersion, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: d3.ThisVersion, Key: pub.Key}), http.StatusConflict)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d3.ThisVersion, Key: pub.Key, Body: map[string]any{"title": "x"}}), http.StatusMethodNotAllowed)

		// Delete the set: others who see it may not (403); the owner can, and
		// it is gone.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: s.URL, Key: other.Key}), http.StatusForbidden)
		authMatrix(t, e, req{Method: "DELETE", Path: s.URL}, "sets:write", nil)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: s.URL, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: s.URL, Key: pub.Key}), http.StatusNotFound)
		if n := e.Store.Client.Set.Query().Where(set.ID(s.ID)).CountX(t.Context()); n != 0 {
			t.Fatal("set still stored")
		}
	})
}

// Sets owned by a group: its data editors edit them; plain members and
// others do not.
func TestSetGroupOwnership(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		editor := e.NewUser(t, "Editor")
		viewer := e.NewUser(t, "Viewer")
		g := createGroup(t, e, admin, map[string]any{"name": "Water", "country": "NZ"})
		addMember(t, e, admin, g.ID, editor.ID, "edit_data")
		addMember(t, e, admin, g.ID, viewer.ID, "member")
		roads := seedLayer(t, e, admin.User, layer.TypeLayer, "Roads", false)

		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/sets/", Key: viewer.Key, Body: map[string]any{"title": "x", "group": g.ID}}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/sets/", Key: editor.Key, Body: map[string]any{"title": "x", "group": 9999}}), http.StatusBadRequest)
		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: admin.Key, Body: map[string]any{"title": "Water set", "group": fmt.Sprintf("%s/groups/%d/", e.API, g.ID), "items": []int{roads.ID}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)
		if s.Group == nil || s.Group.ID != g.ID || s.User != nil {
			t.Fatalf("group set %s", r.Body)
		}
		// The group's data editor sees and edits the draft; a viewer does not.
		getSet(t, e, editor.Key, s.URL, nil)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: s.ThisVersion, Key: editor.Key, Body: map[string]any{"title": "Water set (edited)"}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: s.URL, Key: viewer.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: s.ThisVersion, Key: viewer.Key, Body: map[string]any{"title": "no"}}), http.StatusNotFound)
		// Until published, the set goes by its draft's title.
		r = e.Do(t, req{Path: "/sets/?sort=-title", Key: editor.Key})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"title":"Water set (edited)"`) {
			t.Fatalf("list %s", r.Body)
		}
	})
}
