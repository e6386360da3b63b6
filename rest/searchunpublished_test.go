package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/sets"
)

// Issue 24.3: a public, published set holding a never-published layer
// is not found by that layer's title (whole words or a prefix) through
// /data/, /data/latest/, /sets/?q= or GraphQL search; once the member is
// published, the set is found by its published title.
func TestSearchSetHidesUnpublishedMemberTitles(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, outsider := e.NewUser(t, "Owner"), e.NewUser(t, "Outsider")
		open := seedLayer(t, e, owner.User, layer.TypeLayer, "Open meadows", false)
		draft := seedLayer(t, e, owner.User, layer.TypeLayer, "Zanzibarian quarries", true)
		setID := seedPublishedSet(t, e, owner.User, "Farm survey", open, draft)

		ids := func(key, path string) []int {
			t.Helper()
			r := e.Do(t, req{Path: path, Key: key})
			expectStatus(t, r, http.StatusOK)
			var entries []struct {
				ID   int    `json:"id"`
				Type string `json:"type"`
			}
			r.JSON(t, &entries)
			var out []int
			for _, en := range entries {
				if en.Type == "" || en.Type == "set" {
					out = append(out, en.ID)
				}
			}
			return out
		}
		graphqlSets := func(key, q string) []string {
			t.Helper()
			g := e.GraphQL(t, key, `query($q: String) { search(input: {q: $q}, first: 50) { edges { node { __typename ... on Set { id } } } } }`,
				map[string]any{"q": q})
			if len(g.Errors) > 0 {
				t.Fatalf("GraphQL search: %+v", g.Errors)
			}
			var out struct {
				Search struct {
					Edges []struct {
						Node struct {
							Typename string `json:"__typename"`
							ID       string `json:"id"`
						}
					}
				}
			}
			json.Unmarshal(g.Data, &out)
			var sets []string
			for _, ed := range out.Search.Edges {
				if ed.Node.Typename == "Set" {
					sets = append(sets, ed.Node.ID)
				}
			}
			return sets
		}
		found := func(key, q string) []string {
			t.Helper()
			var where []string
			for _, path := range []string{"/data/?q=", "/data/latest/?q=", "/sets/?q="} {
				if slices.Contains(ids(key, path+q), setID) {
					where = append(where, path)
				}
			}
			if slices.Contains(graphqlSets(key, q), fmt.Sprint(setID)) {
				where = append(where, "graphql")
			}
			return where
		}
		if got := found(outsider.Key, "meadows"); len(got) != 4 {
			t.Fatalf("q=meadows finds the set only through %v", got)
		}
		for _, key := range []string{outsider.Key, ""} {
			for _, q := range []string{"zanzibarian", "zanzib", "quarries"} {
				if got := found(key, q); len(got) > 0 {
					t.Errorf("q=%s finds the set by its unpublished member through %v", q, got)
				}
			}
		}

		// Published, the member's title is the set's text too.
		ctx := t.Context()
		v := e.Store.Client.LayerVersion.Query().Where(layerversion.LayerID(draft.ID)).OnlyX(ctx)
		now := time.Now().UTC()
		v.Update().SetState(layerversion.StatePublished).SetPublishedAt(now).ExecX(ctx)
		draft.Update().SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).ExecX(ctx)
		if got := found(outsider.Key, "zanzib"); len(got) != 4 {
			t.Errorf("after publishing, q=zanzib finds the set only through %v", got)
		}
	})
}

// seedPublishedSet writes a public set of owner whose published version
// (its only one) holds members, and returns its id.
func seedPublishedSet(t *testing.T, e *env, owner *ent.User, title string, members ...*ent.Layer) int {
	t.Helper()
	ctx, c := t.Context(), e.Store.Client
	s := c.Set.Create().SetTitle(title).SetUserID(owner.ID).SaveX(ctx)
	if err := access.GrantDefaults(ctx, c, access.KindSet, s.ID, owner.ID); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	v := c.SetVersion.Create().SetSetID(s.ID).SetTitle(title).SetCreatedBy(owner.ID).
		SetState(setversion.StatePublished).SetPublishedAt(now).SaveX(ctx)
	var ids []int
	for _, l := range members {
		ids = append(ids, l.ID)
	}
	if err := sets.Replace(ctx, c, v.ID, ids); err != nil {
		t.Fatal(err)
	}
	s.Update().SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).ExecX(ctx)
	return s.ID
}
