package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Issue 26.2, kart-diff "for a catalog item, its metadata": the fields of
// the item that changed from one version to another, old and new, as REST
// and GraphQL answer them; versions, drafts, access and bad input as the
// layer diff's.
func TestCatalogItemDiff(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		reader := e.NewUser(t, "Rita")
		it := createItem(t, e, pub, map[string]any{"title": "Road register", "link_url": "https://example.org/roads",
			"tags": []string{"roads"}})
		v1 := publishItem(t, e, pub, it.ThisVersion).Version.ID
		d := doJSON[itemRecord](t, e, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		doJSON[itemRecord](t, e, req{Method: "PUT", Path: d.ThisVersion, Key: pub.Key, Body: map[string]any{
			"description": "Every road.", "link_url": "https://example.org/roads/2026", "tags": []string{"roads", "transport"}}}, http.StatusOK)
		v2 := publishItem(t, e, pub, d.ThisVersion).Version.ID

		diff := "/items/" + it.ID + "/diff/"
		ver := func(v int) string {
			return fmt.Sprintf(`{"id":%d,"url":"%s/items/%s/versions/%d/"}`, v, e.API, it.ID, v)
		}
		want := fmt.Sprintf(`{"from":%s,"to":%s,"fields":[{"name":"description","old":"","new":"Every road."},`+
			`{"name":"link_url","old":"https://example.org/roads","new":"https://example.org/roads/2026"},`+
			`{"name":"tags","old":["roads"],"new":["roads","transport"]}]}`, ver(v1), ver(v2))
		r := e.Do(t, req{Path: diff, Key: reader.Key})
		expectAnswer(t, r, "application/json")
		sameJSON(t, r.Body, want)
		r = e.Do(t, req{Path: fmt.Sprintf("%s?from=%d&to=%d", diff, v1, v2)})
		expectStatus(t, r, http.StatusOK)
		sameJSON(t, r.Body, want)
		// Backwards; a version against itself; the first from nothing.
		r = e.Do(t, req{Path: fmt.Sprintf("%s?from=%d&to=%d", diff, v2, v1), Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `{"name":"tags","old":["roads","transport"],"new":["roads"]}`) {
			t.Fatalf("2→1 %s", r.Body)
		}
		r = e.Do(t, req{Path: fmt.Sprintf("%s?from=%d&to=%d", diff, v2, v2), Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		sameJSON(t, r.Body, fmt.Sprintf(`{"from":%s,"to":%s,"fields":[]}`, ver(v2), ver(v2)))
		r = e.Do(t, req{Path: fmt.Sprintf("%s?to=%d", diff, v1), Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		sameJSON(t, r.Body, fmt.Sprintf(`{"from":null,"to":%s,"fields":[{"name":"title","old":null,"new":"Road register"},`+
			`{"name":"link_url","old":null,"new":"https://example.org/roads"},{"name":"tags","old":null,"new":["roads"]}]}`, ver(v1)))

		// A draft with new metadata: its editors only.
		d3 := doJSON[itemRecord](t, e, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		doJSON[itemRecord](t, e, req{Method: "PUT", Path: d3.ThisVersion, Key: pub.Key, Body: map[string]any{"title": "Road register 2026"}}, http.StatusOK)
		r = e.Do(t, req{Method: "POST", Path: d3.ThisVersion + "metadata/", Key: pub.Key, Body: []byte(dcMetadata),
			Header: map[string]string{"Content-Type": "text/xml"}})
		expectStatus(t, r, http.StatusCreated)
		toDraft := fmt.Sprintf("%s?to=%d", diff, d3.Version.ID)
		r = e.Do(t, req{Path: toDraft, Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		sameJSON(t, r.Body, fmt.Sprintf(`{"from":%s,"to":%s,"fields":[{"name":"title","old":"Road register","new":"Road register 2026"},`+
			`{"name":"metadata.format","old":null,"new":"dc"},{"name":"metadata.title","old":null,"new":"Roads"},`+
			`{"name":"metadata.abstract","old":null,"new":"All roads."},{"name":"metadata.keywords","old":null,"new":["roads"]}]}`,
			ver(v2), ver(d3.Version.ID)))
		expectDetail(t, e.Do(t, req{Path: toDraft, Key: reader.Key}), http.StatusNotFound, fmt.Sprintf("Version %d not found", d3.Version.ID))
		expectStatus(t, e.Do(t, req{Path: toDraft}), http.StatusNotFound)

		// GraphQL.
		const q = `query($id: String!, $from: ID, $to: ID) { catalogItemDiff(itemID: $id, from: $from, to: $to) {
			from { id } to { id } fields { name old new } } }`
		g := e.GraphQL(t, reader.Key, q, map[string]any{"id": it.ID})
		if len(g.Errors) > 0 {
			t.Fatalf("catalogItemDiff: %+v", g.Errors)
		}
		sameJSON(t, g.Data, fmt.Sprintf(`{"catalogItemDiff":{"from":{"id":"%d"},"to":{"id":"%d"},"fields":[
			{"name":"description","old":"","new":"Every road."},
			{"name":"link_url","old":"https://example.org/roads","new":"https://example.org/roads/2026"},
			{"name":"tags","old":["roads"],"new":["roads","transport"]}]}}`, v1, v2))
		if g := e.GraphQL(t, reader.Key, q, map[string]any{"id": it.ID, "to": d3.Version.ID}); gqlStatus(g.Errors) != http.StatusNotFound {
			t.Fatalf("a reader diffed a draft: %+v", g.Errors)
		}

		// Bad input.
		for _, tc := range []struct{ query, field string }{{"from=abc", "from"}, {"to=x", "to"}} {
			r := e.Do(t, req{Path: diff + "?" + tc.query, Key: pub.Key})
			expectStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), `"`+tc.field+`"`) {
				t.Errorf("%s: %s does not name %s", tc.query, r.Body, tc.field)
			}
		}
		other := publishedItem(t, e, pub)
		expectDetail(t, e.Do(t, req{Path: diff + "?from=999999", Key: pub.Key}), http.StatusNotFound, "Version 999999 not found")
		expectDetail(t, e.Do(t, req{Path: fmt.Sprintf("%s?from=%d", diff, other.draftID), Key: pub.Key}), http.StatusNotFound, "not found")
		expectStatus(t, e.Do(t, req{Path: "/items/c999999/diff/", Key: pub.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: "/items/999/diff/", Key: pub.Key}), http.StatusNotFound)

		// Auth: wrong scope, view only (401 anonymous, 403 signed in),
		// private (404).
		expectScope(t, e, req{Path: diff}, pub, "catalog")
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: it.URL + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "view", "group": "everyone"}, {"permission": "admin", "user": pub.ID}}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: diff}), http.StatusUnauthorized)
		expectDetail(t, e.Do(t, req{Path: diff, Key: reader.Key}), http.StatusForbidden, "kart-diff")
		if g := e.GraphQL(t, reader.Key, q, map[string]any{"id": it.ID}); gqlStatus(g.Errors) != http.StatusForbidden {
			t.Fatalf("a viewer read the item diff: %+v", g.Errors)
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: it.URL + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "admin", "user": pub.ID}}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: diff}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: diff, Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: diff, Key: pub.Key}), http.StatusOK)
	})
}

// dcMetadata is a Dublin Core record.
const dcMetadata = `<?xml version="1.0"?>
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
  <dc:title>Roads</dc:title>
  <dc:description>All roads.</dc:description>
  <dc:subject>roads</dc:subject>
</metadata>`
