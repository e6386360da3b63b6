package rest_test

import (
	"fmt"
	"github.com/geopub/geopub/internal/access"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/sets"
	"github.com/geopub/geopub/internal/store/storetest"
)

// seedSets writes n published sets of owner straight into the store, each
// holding members (in that order).
func seedSets(t *testing.T, e *env, owner *ent.User, n int, members []*ent.Layer) {
	t.Helper()
	ctx := t.Context()
	c := e.Store.Client
	ids := make([]int, len(members))
	for i, l := range members {
		ids[i] = l.ID
	}
	now := time.Now().UTC()
	for i := 0; i < n; i++ {
		s := c.Set.Create().SetTitle(fmt.Sprintf("Set %03d", i)).SetUserID(owner.ID).SaveX(ctx)
		if err := access.GrantDefaults(ctx, c, access.KindSet, s.ID, owner.ID); err != nil {
			t.Fatal(err)
		}
		v := c.SetVersion.Create().SetSetID(s.ID).SetTitle(s.Title).SetCreatedBy(owner.ID).
			SetState(setversion.StatePublished).SetPublishedAt(now).SaveX(ctx)
		if err := sets.Replace(ctx, c, v.ID, ids); err != nil {
			t.Fatal(err)
		}
		s.Update().SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).ExecX(ctx)
		// A draft too, so editors' lists load both versions.
		dv := c.SetVersion.Create().SetSetID(s.ID).SetTitle(s.Title).SetCreatedBy(owner.ID).SaveX(ctx)
		if err := sets.Replace(ctx, c, dv.ID, ids[:1]); err != nil {
			t.Fatal(err)
		}
	}
}

// Members load in one batch: a page of sets with their members, and one set
// of 150 members, cost a constant number of statements over REST and
// GraphQL.
func TestSetStatementCountIsBounded(t *testing.T) {
	eachCounted(t, func(t *testing.T, e *env, counter *storetest.Counter) {
		owner := e.NewUser(t, "Owner")
		viewer := e.NewUser(t, "Viewer")
		var members []*ent.Layer
		for i := 0; i < 150; i++ {
			members = append(members, seedLayer(t, e, owner.User, layer.TypeLayer, fmt.Sprintf("L%03d", i), i%10 == 0))
		}
		seedSets(t, e, owner.User, 40, members[:5])
		seedSets(t, e, owner.User, 1, members)
		bigID := e.Store.Client.Set.Query().Order(ent.Desc("id")).FirstIDX(t.Context())
		// Every version has a metadata document, linked from its record.
		for _, v := range e.Store.Client.SetVersion.Query().AllX(t.Context()) {
			e.Store.Client.MetadataDocument.Create().SetDatasetKind("set").SetDatasetID(v.SetID).SetVersionID(v.ID).
				SetFormat("dc").SetXML("<metadata/>").SetUploadedBy(owner.ID).ExecX(t.Context())
		}

		for _, u := range []*user{owner, viewer} {
			for name, call := range map[string]func() int{
				"ListExpanded": func() int {
					r := e.Do(t, req{Path: "/sets/?page_size=41", Key: u.Key, Header: map[string]string{"Expand": "list"}})
					expectStatus(t, r, http.StatusOK)
					var body []setRecord
					r.JSON(t, &body)
					if len(body) != 41 || body[0].Metadata["dc"] == "" || body[40].Metadata["dc"] == "" {
						t.Fatalf("%d sets, metadata %v", len(body), body[0].Metadata)
					}
					return len(body[40].Items)
				},
				"Drafts": func() int {
					r := e.Do(t, req{Path: "/sets/drafts/?page_size=41", Key: u.Key, Header: map[string]string{"Expand": "list"}})
					expectStatus(t, r, http.StatusOK)
					var body []setRecord
					r.JSON(t, &body)
					return len(body)
				},
				"DetailExpanded": func() int {
					s := getSet(t, e, u.Key, fmt.Sprintf("/sets/%d/", bigID), map[string]string{"Expand": "items"})
					return len(s.Items)
				},
				"GraphQL": func() int {
					g := e.GraphQL(t, u.Key, `{ sets(first: 41) { edges { node { title items { id name }
							publishedVersion { id metadata { format } } draftVersion { items { id } } latestVersion { id } } } } }`, nil)
					if len(g.Errors) > 0 || strings.Count(string(g.Data), `"metadata":{"format":"dc"}`) != 41 {
						t.Fatalf("%+v %.300s", g.Errors, g.Data)
					}
					return len(g.Data)
				},
			} {
				counter.Reset()
				got := call()
				// Authentication, the page, the count, the caller's
				// groups, rights, versions, members, metadata documents
				// and owners: a constant, whatever the number of sets
				// and members.
				if n := counter.Count(); n > 14 {
					t.Fatalf("%s as %s ran %d statements:\n%s", name, u.FirstName, n, counter.Statements())
				} else {
					t.Logf("%s as %s: %d statements (result %d)", name, u.FirstName, n, got)
				}
			}
		}
	})
}
