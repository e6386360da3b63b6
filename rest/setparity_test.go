package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/geopub/geopub/ent/layer"
)

// Sets through GraphQL: the mutations REST uses, with the same codes, and
// the same answers as REST for the set, its versions and the list.
func TestSetGraphQLAndRESTAgree(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		a := seedLayer(t, e, pub.User, layer.TypeLayer, "A", false)
		b := seedLayer(t, e, pub.User, layer.TypeTable, "B", false)
		c := seedLayer(t, e, reader.User, layer.TypeLayer, "C", false)

		gq := func(key, query string, vars map[string]any, out any) string {
			t.Helper()
			g := e.GraphQL(t, key, query, vars)
			if len(g.Errors) > 0 {
				return g.Errors[0].Code()
			}
			if err := json.Unmarshal(g.Data, out); err != nil {
				t.Fatalf("decoding %s: %v", g.Data, err)
			}
			return ""
		}
		type version struct {
			ID    string
			State string
			Items []struct{ ID string }
		}
		var created struct{ CreateSet version }
		if code := gq(pub.Key, `mutation($in: CreateSetInput!) { createSet(input: $in) { id state items { id } } }`,
			map[string]any{"in": map[string]any{"title": "Graph set", "items": []int{c.ID, a.ID}}}, &created); code != "" {
			t.Fatalf("createSet: %s", code)
		}
		v := created.CreateSet
		if v.State != "draft" || len(v.Items) != 2 || v.Items[0].ID != fmt.Sprint(c.ID) {
			t.Fatalf("created %+v", v)
		}

		sv, _ := e.Store.Client.SetVersion.Get(t.Context(), atoi(t, v.ID))
		setID := sv.SetID
		var out map[string]any
		if code := gq(pub.Key, `mutation($in: CreateSetInput!) { createSet(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"title": "Dup", "items": []int{a.ID, a.ID}}}, &out); code != "BAD_REQUEST" {
			t.Fatalf("duplicate items: %q", code)
		}
		if code := gq(reader.Key, `mutation($s: ID!, $v: ID!) { publishSetVersion(setID: $s, versionID: $v) { id } }`,
			map[string]any{"s": setID, "v": v.ID}, &out); code != "NOT_FOUND" {
			t.Fatalf("reader publishing: %q", code)
		}
		if code := gq(pub.Key, `mutation($s: ID!, $v: ID!) { updateSetDraft(setID: $s, versionID: $v, input: {items: [`+fmt.Sprint(b.ID)+`, `+fmt.Sprint(a.ID)+`, `+fmt.Sprint(c.ID)+`]}) { id } }`,
			map[string]any{"s": setID, "v": v.ID}, &out); code != "" {
			t.Fatalf("updateSetDraft: %q", code)
		}
		// Publish through the publish mutation with a set version.
		var pg struct{ Publish struct{ State string } }
		if code := gq(pub.Key, `mutation($v: ID!) { publish(input: {versionIDs: [], setVersionIDs: [$v]}) { state } }`,
			map[string]any{"v": v.ID}, &pg); code != "" || pg.Publish.State != "completed" {
			t.Fatalf("publish: %q %+v", code, pg)
		}
		if code := gq(pub.Key, `mutation($s: ID!, $v: ID!) { updateSetDraft(setID: $s, versionID: $v, input: {title: "x"}) { id } }`,
			map[string]any{"s": setID, "v": v.ID}, &out); code != "METHOD_NOT_ALLOWED" {
			t.Fatalf("editing the published version: %q", code)
		}
		if code := gq(pub.Key, `mutation($s: ID!, $v: ID!) { deleteSetDraft(setID: $s, versionID: $v) }`,
			map[string]any{"s": setID, "v": v.ID}, &out); code != "METHOD_NOT_ALLOWED" {
			t.Fatalf("deleting the published version: %q", code)
		}
		var draft struct{ CreateSetDraft version }
		if code := gq(pub.Key, `mutation($s: ID!) { createSetDraft(setID: $s) { id state items { id } } }`, map[string]any{"s": setID}, &draft); code != "" ||
			draft.CreateSetDraft.State != "draft" || len(draft.CreateSetDraft.Items) != 3 || draft.CreateSetDraft.Items[0].ID != fmt.Sprint(b.ID) {
			t.Fatalf("createSetDraft: %q %+v", code, draft)
		}
		if code := gq(pub.Key, `mutation($s: ID!) { createSetDraft(setID: $s) { id } }`, map[string]any{"s": setID}, &out); code != "CONFLICT" {
			t.Fatalf("second draft: %q", code)
		}
		if code := gq("", `{ sets { totalCount } }`, nil, &out); code != "" {
			t.Fatalf("anonymous sets: %q", code)
		}
		if code := gq(e.Token(t, pub.User, "layers:read"), `{ sets { totalCount } }`, nil, &out); code != "UNAUTHENTICATED" {
			t.Fatalf("sets without sets:read: %q", code)
		}

		// The same set through both doors, for the publisher and a reader.
		for _, u := range []*user{pub, reader} {
			rs := getSet(t, e, u.Key, fmt.Sprintf("/sets/%d/", setID), nil)
			var g struct {
				Set struct {
					ID               string
					Title            string
					Items            []struct{ ID, Type string }
					PublishedVersion struct{ ID string }
					LatestVersion    struct{ ID string }
					DraftVersion     *struct{ ID string }
					Versions         []struct{ ID string }
				}
			}
			if code := gq(u.Key, `query($id: ID!) { set(id: $id) { id title items { id type } publishedVersion { id } latestVersion { id } draftVersion { id } versions { id } } }`,
				map[string]any{"id": setID}, &g); code != "" {
				t.Fatalf("set: %q", code)
			}
			urls := rs.itemURLs(t)
			if g.Set.Title != rs.Title || len(g.Set.Items) != len(urls) || rs.Version.ID != atoi(t, g.Set.PublishedVersion.ID) ||
				rs.LatestVersion != fmt.Sprintf("%s/sets/%d/versions/%s/", e.API, setID, g.Set.LatestVersion.ID) {
				t.Fatalf("REST %+v vs GraphQL %+v", rs, g.Set)
			}
			for i, it := range g.Set.Items {
				if urls[i] != fmt.Sprintf("%s/%ss/%s/", e.API, it.Type, it.ID) {
					t.Fatalf("item %d: REST %s vs GraphQL %+v", i, urls[i], it)
				}
			}
			r := e.Do(t, req{Path: fmt.Sprintf("/sets/%d/versions/", setID), Key: u.Key})
			expectStatus(t, r, http.StatusOK)
			var rv []struct{ ID int }
			r.JSON(t, &rv)
			if len(rv) != len(g.Set.Versions) {
				t.Fatalf("versions: REST %s vs GraphQL %+v", r.Body, g.Set.Versions)
			}
			for i := range rv {
				if fmt.Sprint(rv[i].ID) != g.Set.Versions[i].ID {
					t.Fatalf("versions: REST %s vs GraphQL %+v", r.Body, g.Set.Versions)
				}
			}
			if (u == pub) != (g.Set.DraftVersion != nil) {
				t.Fatalf("draft visible to %s: %+v", u.FirstName, g.Set.DraftVersion)
			}

			// The lists agree too.
			r = e.Do(t, req{Path: "/sets/?sort=-created_at&page_size=5", Key: u.Key})
			expectStatus(t, r, http.StatusOK)
			var rl []struct {
				ID    int
				Title string
			}
			r.JSON(t, &rl)
			var gl struct {
				SetSearch struct {
					Items    []struct{ ID, Title string }
					PageInfo struct{ Total int }
				}
				Sets struct {
					TotalCount int
					Edges      []struct{ Node struct{ ID string } }
				}
			}
			if code := gq(u.Key, `{ setSearch(sort: CREATED_AT_DESC, pageSize: 5) { items { id title } pageInfo { total } }
				sets(first: 5, orderBy: {field: CREATED_AT, direction: DESC}) { totalCount edges { node { id } } } }`, nil, &gl); code != "" {
				t.Fatalf("lists: %q", code)
			}
			if len(rl) != len(gl.SetSearch.Items) || len(rl) != gl.Sets.TotalCount || fmt.Sprintf("0-%d/%d", len(rl), gl.SetSearch.PageInfo.Total) != r.Header.Get("X-Resource-Range") {
				t.Fatalf("REST %s (%s) vs GraphQL %+v", r.Body, r.Header.Get("X-Resource-Range"), gl)
			}
			for i := range rl {
				if fmt.Sprint(rl[i].ID) != gl.SetSearch.Items[i].ID || rl[i].Title != gl.SetSearch.Items[i].Title || gl.Sets.Edges[i].Node.ID != gl.SetSearch.Items[i].ID {
					t.Fatalf("list item %d: REST %+v vs GraphQL %+v", i, rl[i], gl)
				}
			}
		}

		// deleteSet, as REST's DELETE.
		if code := gq(reader.Key, `mutation($s: ID!) { deleteSet(id: $s) }`, map[string]any{"s": setID}, &out); code != "FORBIDDEN" {
			t.Fatalf("reader deleting: %q", code)
		}
		if code := gq(pub.Key, `mutation($s: ID!) { deleteSet(id: $s) }`, map[string]any{"s": setID}, &out); code != "" {
			t.Fatalf("deleteSet: %q", code)
		}
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sets/%d/", setID), Key: pub.Key}), http.StatusNotFound)
	})
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}
