package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
)

// publishSetDraft publishes a set's draft and waits for the publish.
func publishSetDraft(t *testing.T, e *env, u *user, draftURL string) {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: draftURL + "publish/", Key: u.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	if g := waitPublish(t, e, u.Key, r.Header.Get("Location")); g["state"] != "completed" {
		t.Fatalf("set publish %v", g)
	}
}

// seedNextVersion publishes a new version of a seeded layer straight into
// the store (no rows, as seedLayer's) and returns its id.
func seedNextVersion(t *testing.T, e *env, l *ent.Layer) int {
	t.Helper()
	ctx := t.Context()
	c := e.Store.Client
	c.LayerVersion.Update().Where(layerversion.LayerID(l.ID), layerversion.StateEQ(layerversion.StatePublished)).
		SetState(layerversion.StateSuperseded).ExecX(ctx)
	now := time.Now().UTC()
	v := c.LayerVersion.Create().SetLayerID(l.ID).SetName(l.Name).SetCreatedBy(l.UserID).SetDatasourceIds([]int{}).
		SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).SetPublishedAt(now).SaveX(ctx)
	c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).SetPublishedAt(now).ExecX(ctx)
	return v.ID
}

// sameJSON compares a JSON answer with the JSON wanted, as values.
func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("answer %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("wanted %s: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("answer\n%s\nwant\n%s", got, want)
	}
}

// Issue 26.2, kart-diff "for a set, per member" (SPEC: kart-diff is a
// service of "layer, set, catalog item"): from set version 1 to 2 a member
// was added, one removed, and two kept whose layer versions changed, each
// with its layer diff's counts and a link to it; the set's own fields.
// Each set version stands for its members' versions as published when the
// next set version was (sets.Until).
func TestSetDiff(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		draft := importedDraft(t, e, pub.Key, map[string]string{"parcels.geojson": parcelCollection(
			parcelFeature(10, "a", 174.70), parcelFeature(20, "b", 174.71), parcelFeature(30, "c", 174.72))}, "parcels.geojson", "Parcels")
		doJSON[pkRecord](t, e, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: pkBody("code")}, http.StatusOK)
		publishLayerDraft(t, e, pub, draft)
		parcelsURL := strings.Split(draft, "versions/")[0]
		parcels, parcels1 := versionNumber(t, parcelsURL), versionNumber(t, draft)
		rivers := seedLayer(t, e, pub.User, layer.TypeLayer, "Rivers", false)
		rails := seedLayer(t, e, pub.User, layer.TypeLayer, "Rails", false)
		codes := seedLayer(t, e, pub.User, layer.TypeTable, "Codes", false)

		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{
			"title": "Transport", "items": []string{parcelsURL, memberURL(e, rivers), memberURL(e, codes)}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)
		publishSetDraft(t, e, pub, s.ThisVersion)
		d := doJSON[setRecord](t, e, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		doJSON[setRecord](t, e, req{Method: "PATCH", Path: d.ThisVersion, Key: pub.Key, Body: map[string]any{
			"title": "Transport and water", "items": []string{parcelsURL, memberURL(e, rivers), memberURL(e, rails)}}}, http.StatusOK)
		publishSetDraft(t, e, pub, d.ThisVersion)
		// After set version 2: new versions of two members, which it (the
		// current version) stands for.
		d2 := importedNextDraft(t, e, pub.Key, parcelsURL, map[string]string{"parcels.geojson": parcelCollection(
			parcelFeature(10, "a", 174.80), parcelFeature(20, "b2", 174.71), parcelFeature(40, "d", 174.73))}, "parcels.geojson")
		publishLayerDraft(t, e, pub, d2)
		parcels2 := versionNumber(t, d2)
		rivers2 := seedNextVersion(t, e, rivers)

		sv1, sv2 := s.Version.ID, d.Version.ID
		ref := func(path string, id int) string { return fmt.Sprintf(`{"id":%d,"url":"%s/%s"}`, id, e.API, path) }
		setV := func(v int) string { return ref(fmt.Sprintf("sets/%d/versions/%d/", s.ID, v), v) }
		lyr := func(kind string, id int) string { return ref(fmt.Sprintf("%s/%d/", kind, id), id) }
		ver := func(kind string, id, v int) string { return ref(fmt.Sprintf("%s/%d/versions/%d/", kind, id, v), v) }
		diffURL := func(id, from, to int) string {
			return fmt.Sprintf(`"%s/layers/%d/diff/?from=%d&to=%d"`, e.API, id, from, to)
		}
		parcelsChange := fmt.Sprintf(`{"layer":%s,"from_version":%s,"to_version":%s,"counts":{"inserts":1,"updates":2,"deletes":1},`+
			`"schema":{},"matched_by":["code"],"diff_url":%s}`, lyr("layers", parcels), ver("layers", parcels, parcels1),
			ver("layers", parcels, parcels2), diffURL(parcels, parcels1, parcels2))
		riversChange := fmt.Sprintf(`{"layer":%s,"from_version":%s,"to_version":%s,"counts":{"inserts":0,"updates":0,"deletes":0},`+
			`"schema":{},"matched_by":[],"diff_url":%s}`, lyr("layers", rivers.ID), ver("layers", rivers.ID, *rivers.PublishedVersionID),
			ver("layers", rivers.ID, rivers2), diffURL(rivers.ID, *rivers.PublishedVersionID, rivers2))
		want := fmt.Sprintf(`{"from":%s,"to":%s,"fields":[{"name":"title","old":"Transport","new":"Transport and water"}],`+
			`"members":{"added":[{"layer":%s,"version":%s}],"removed":[{"layer":%s,"version":%s}],"changed":[%s,%s]},`+
			`"counts":{"added":1,"removed":1,"changed":2}}`,
			setV(sv1), setV(sv2), lyr("layers", rails.ID), ver("layers", rails.ID, *rails.PublishedVersionID),
			lyr("tables", codes.ID), ver("tables", codes.ID, *codes.PublishedVersionID), parcelsChange, riversChange)
		setDiff := fmt.Sprintf("/sets/%d/diff/", s.ID)
		r = e.Do(t, req{Path: setDiff, Key: pub.Key})
		expectAnswer(t, r, "application/json")
		sameJSON(t, r.Body, want)
		// The versions named; counts alone.
		r = e.Do(t, req{Path: fmt.Sprintf("%s?from=%d&to=%d", setDiff, sv1, sv2), Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		sameJSON(t, r.Body, want)
		r = e.Do(t, req{Path: setDiff + "?format=counts", Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		sameJSON(t, r.Body, fmt.Sprintf(`{"from":%s,"to":%s,"counts":{"added":1,"removed":1,"changed":2}}`, setV(sv1), setV(sv2)))
		// Backwards: the changes reversed.
		var back struct {
			Members struct {
				Added, Removed []struct{ Layer struct{ ID int } }
				Changed        []struct{ Counts map[string]int }
			}
		}
		doJSONInto(t, e, req{Path: fmt.Sprintf("%s?from=%d&to=%d", setDiff, sv2, sv1), Key: pub.Key}, &back)
		if len(back.Members.Added) != 1 || back.Members.Added[0].Layer.ID != codes.ID || back.Members.Removed[0].Layer.ID != rails.ID ||
			fmt.Sprint(back.Members.Changed[0].Counts) != "map[deletes:1 inserts:1 updates:2]" {
			t.Fatalf("2→1 %+v", back)
		}

		// Pages of one changed member: the next in links and the Link header.
		r = e.Do(t, req{Path: setDiff + "?page_size=1", Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		var page struct {
			Members struct {
				Changed []struct{ Layer struct{ ID int } }
			}
			Links []struct{ Rel, Href string }
		}
		r.JSON(t, &page)
		if len(page.Members.Changed) != 1 || page.Members.Changed[0].Layer.ID != parcels || len(page.Links) != 1 ||
			r.Header.Get("Link") != "<"+page.Links[0].Href+`>; rel="page-next"` {
			t.Fatalf("page 1 %s (Link %q)", r.Body, r.Header.Get("Link"))
		}
		next := page.Links[0].Href
		page.Links = nil
		doJSONInto(t, e, req{Path: next, Key: pub.Key}, &page)
		if len(page.Members.Changed) != 1 || page.Members.Changed[0].Layer.ID != rivers.ID || len(page.Links) != 0 {
			t.Fatalf("page 2 %+v", page)
		}

		// A draft: to those who may edit the set only.
		d3 := doJSON[setRecord](t, e, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		doJSON[setRecord](t, e, req{Method: "PATCH", Path: d3.ThisVersion, Key: pub.Key, Body: map[string]any{
			"items": []string{parcelsURL}}}, http.StatusOK)
		toDraft := fmt.Sprintf("%s?to=%d", setDiff, d3.Version.ID)
		var draftDiff struct {
			From   struct{ ID int }
			Counts map[string]int
		}
		doJSONInto(t, e, req{Path: toDraft, Key: pub.Key}, &draftDiff)
		if draftDiff.From.ID != sv2 || fmt.Sprint(draftDiff.Counts) != "map[added:0 changed:0 removed:2]" {
			t.Fatalf("to the draft %+v", draftDiff)
		}
		reader := e.NewUser(t, "Rita")
		expectDetail(t, e.Do(t, req{Path: toDraft, Key: reader.Key}), http.StatusNotFound, fmt.Sprintf("Version %d not found", d3.Version.ID))
		expectStatus(t, e.Do(t, req{Path: toDraft}), http.StatusNotFound)

		// GraphQL answers from the same diff.
		const q = `query($id: ID!, $after: String, $first: Int) { setDiff(setID: $id, after: $after, first: $first) {
			from { id } to { id } fields { name old new } added { layer { id } version { id } } removed { layer { id } }
			changed { layer { id } fromVersion { id } toVersion { id } counts { inserts updates deletes } matchedBy }
			counts { added removed changed } endCursor hasNextPage } }`
		g := e.GraphQL(t, reader.Key, q, map[string]any{"id": s.ID, "first": 1})
		if len(g.Errors) > 0 {
			t.Fatalf("setDiff: %+v", g.Errors)
		}
		sameJSON(t, g.Data, fmt.Sprintf(`{"setDiff":{"from":{"id":"%d"},"to":{"id":"%d"},
			"fields":[{"name":"title","old":"Transport","new":"Transport and water"}],
			"added":[{"layer":{"id":"%d"},"version":{"id":"%d"}}],"removed":[{"layer":{"id":"%d"}}],
			"changed":[{"layer":{"id":"%d"},"fromVersion":{"id":"%d"},"toVersion":{"id":"%d"},"counts":{"inserts":1,"updates":2,"deletes":1},"matchedBy":["code"]}],
			"counts":{"added":1,"removed":1,"changed":2},"endCursor":"1","hasNextPage":true}}`,
			sv1, sv2, rails.ID, *rails.PublishedVersionID, codes.ID, parcels, parcels1, parcels2))
		g = e.GraphQL(t, reader.Key, q, map[string]any{"id": s.ID, "after": "1"})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), fmt.Sprintf(`"changed":[{"layer":{"id":"%d"}`, rivers.ID)) ||
			!strings.Contains(string(g.Data), `"hasNextPage":false`) {
			t.Fatalf("setDiff after 1: %+v %s", g.Errors, g.Data)
		}
		for _, vars := range []map[string]any{{"id": s.ID, "first": 101}, {"id": s.ID, "after": "x"}} {
			if g := e.GraphQL(t, pub.Key, q, vars); gqlStatus(g.Errors) != http.StatusBadRequest {
				t.Fatalf("setDiff %v: %+v", vars, g.Errors)
			}
		}

		// Bad input: 400s naming the parameter, 404s for versions that are
		// not this set's.
		for _, tc := range []struct{ query, field string }{
			{"from=abc", "from"}, {"to=1.5", "to"}, {"format=geojson", "format"}, {"page_size=0", "page_size"},
			{"page_size=101", "page_size"}, {"cursor=-1", "cursor"}, {"cursor=x", "cursor"},
		} {
			r := e.Do(t, req{Path: setDiff + "?" + tc.query, Key: pub.Key})
			expectStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), `"`+tc.field+`"`) {
				t.Errorf("%s: %s does not name %s", tc.query, r.Body, tc.field)
			}
		}
		other := publishedSet(t, e, pub, memberURL(e, rails))
		expectDetail(t, e.Do(t, req{Path: setDiff + "?from=999999", Key: pub.Key}), http.StatusNotFound, "Version 999999 not found")
		expectDetail(t, e.Do(t, req{Path: fmt.Sprintf("%s?from=%d", setDiff, other.draftID), Key: pub.Key}), http.StatusNotFound, "not found")
		expectDetail(t, e.Do(t, req{Path: fmt.Sprintf("/sets/%d/diff/?to=%d", other.id, sv2), Key: pub.Key}), http.StatusNotFound, "not found")
		expectStatus(t, e.Do(t, req{Path: "/sets/999999/diff/", Key: pub.Key}), http.StatusNotFound)

		// Auth. Everyone may download a new set and its members: anyone
		// reads the diff. Wrong scope: 401 naming sets:read.
		expectStatus(t, e.Do(t, req{Path: setDiff}), http.StatusOK)
		expectScope(t, e, req{Path: setDiff}, pub, "sets:read")
		// A member only viewed by everyone: its counts withheld from
		// those who may not read its own diff, the rest as before.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: parcelsURL + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "view", "group": "everyone"}, {"permission": "admin", "user": pub.ID}}}), http.StatusOK)
		var withheld struct {
			Members struct {
				Changed []struct {
					Counts    *map[string]int
					Schema    *map[string]any
					MatchedBy []string `json:"matched_by"`
					DiffURL   *string  `json:"diff_url"`
				}
			}
		}
		doJSONInto(t, e, req{Path: setDiff, Key: reader.Key}, &withheld)
		if c := withheld.Members.Changed; len(c) != 2 || c[0].Counts != nil || c[0].Schema != nil || c[0].MatchedBy != nil ||
			c[0].DiffURL == nil || c[1].Counts == nil {
			t.Fatalf("withheld counts %+v", withheld)
		}
		// The set only viewed by everyone: 401 anonymous, 403 signed in.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: s.URL + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "view", "group": "everyone"}, {"permission": "admin", "user": pub.ID}}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: setDiff}), http.StatusUnauthorized)
		expectDetail(t, e.Do(t, req{Path: setDiff, Key: reader.Key}), http.StatusForbidden, "kart-diff")
		if g := e.GraphQL(t, reader.Key, q, map[string]any{"id": s.ID}); gqlStatus(g.Errors) != http.StatusForbidden {
			t.Fatalf("a viewer read the set diff: %+v", g.Errors)
		}
		// A private set: not found to others.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: s.URL + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "admin", "user": pub.ID}}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: setDiff}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: setDiff, Key: reader.Key}), http.StatusNotFound)
		if g := e.GraphQL(t, "", q, map[string]any{"id": s.ID}); gqlStatus(g.Errors) != http.StatusNotFound {
			t.Fatalf("anonymous read a private set's diff: %+v", g.Errors)
		}
		expectStatus(t, e.Do(t, req{Path: setDiff, Key: pub.Key}), http.StatusOK)
	})
}
