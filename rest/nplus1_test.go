package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// eachCounted runs fn per backend on a service whose SQL statements
// counter counts.
func eachCounted(t *testing.T, fn func(t *testing.T, e *env, counter *storetest.Counter)) {
	for _, d := range storetest.Backends {
		t.Run(d, func(t *testing.T) {
			counter := storetest.Counter{Only: servertest.InRequest}
			st := storetest.Open(t, d, storetest.Options{Driver: counter.Wrap})
			fn(t, servertest.New(t, st), &counter)
		})
	}
}

// Issue acceptance: "No N+1: listing 200 groups with Expand: list runs a
// bounded number of SQL statements."
func TestGroupListStatementCountIsBounded(t *testing.T) {
	eachCounted(t, func(t *testing.T, e *env, counter *storetest.Counter) {
		viewer := e.NewUser(t, "Viewer")
		e.SeedGroups(t, "G", 200, viewer.User, "edit_users")

		for _, expand := range []string{"", "list", "list.permissions"} {
			counter.Reset()
			r := e.Do(t, req{Path: "/groups/?page_size=200&type=normal&q=G", Key: viewer.Key,
				Header: map[string]string{"Expand": expand}})
			expectStatus(t, r, http.StatusOK)
			var body []struct {
				Permissions any `json:"permissions"`
			}
			r.JSON(t, &body)
			if len(body) != 200 {
				t.Fatalf("Expand %q: %d groups", expand, len(body))
			}
			if expand == "list.permissions" {
				if perms, ok := body[0].Permissions.([]any); !ok || len(perms) != 1 {
					t.Fatalf("permissions not inlined: %v", body[0].Permissions)
				}
			}
			// Authentication (token and user), count, page, two facet
			// counts, and for permissions the caller's rights and the
			// members with their users: a constant, whatever the page size.
			if n := counter.Count(); n > 12 {
				t.Fatalf("Expand %q ran %d statements for 200 groups:\n%s", expand, n, counter.Statements())
			} else {
				t.Logf("Expand %q: %d statements", expand, n)
			}
		}
	})
}

// Listing 200 feedback items runs a bounded number of SQL statements: the
// people they name load in one query.
func TestFeedbackListStatementCountIsBounded(t *testing.T) {
	eachCounted(t, func(t *testing.T, e *env, counter *storetest.Counter) {
		owner := e.NewUser(t, "Owner")
		lid := seedFeedbackLayer(t, e, owner, "layer", true)
		ctx := context.Background()
		authors := make([]*user, 10)
		for i := range authors {
			authors[i] = e.NewUser(t, fmt.Sprint("U", i))
		}
		creates := make([]*ent.FeedbackCreate, 200)
		for i := range creates {
			creates[i] = e.Store.Client.Feedback.Create().SetDescription("**hi**").SetCreatedBy(authors[i%10].ID).
				SetTargetType("layer").SetTargetID(lid).SetAssigneeID(owner.ID)
		}
		e.Store.Client.Feedback.CreateBulk(creates...).ExecX(ctx)
		counter.Reset()
		ids, _ := listFeedback(t, e, owner.Key, "?page_size=200")
		if len(ids) != 200 {
			t.Fatalf("%d items", len(ids))
		}
		// Authentication, count, page, people, and two lookups of the
		// caller's groups per kind of ticketed object (five kinds since
		// catalog items joined): a constant, whatever the page size.
		if n := counter.Count(); n > 16 {
			t.Fatalf("listing 200 feedback items ran %d statements:\n%s", n, counter.Statements())
		} else {
			t.Logf("%d statements", n)
		}
	})
}

// Listing layers costs a bounded number of SQL statements, whatever the
// page size: current versions, the caller's right to see drafts and the
// versions' metadata documents load in one batch each.
func TestLayerListStatementCountIsBounded(t *testing.T) {
	eachCounted(t, func(t *testing.T, e *env, counter *storetest.Counter) {
		owner := e.NewUser(t, "Owner")
		viewer := e.NewUser(t, "Viewer")
		for i := 0; i < 120; i++ {
			l := seedLayer(t, e, owner.User, layer.TypeLayer, fmt.Sprintf("L%03d", i), false)
			if i%3 == 0 {
				e.Store.Client.LayerVersion.Create().SetLayerID(l.ID).SetName(l.Name).SetCreatedBy(owner.ID).
					SetDatasourceIds([]int{}).SetStatus("ok").ExecX(t.Context())
			}
		}
		for _, v := range e.Store.Client.LayerVersion.Query().AllX(t.Context()) {
			e.Store.Client.MetadataDocument.Create().SetDatasetKind("layer").SetDatasetID(v.LayerID).SetVersionID(v.ID).
				SetFormat("dc").SetXML("<metadata/>").SetUploadedBy(owner.ID).ExecX(t.Context())
		}
		for _, u := range []*user{owner, viewer} {
			for _, expand := range []string{"", "list"} {
				counter.Reset()
				r := e.Do(t, req{Path: "/layers/?page_size=120", Key: u.Key, Header: map[string]string{"Expand": expand}})
				expectStatus(t, r, http.StatusOK)
				var body []struct {
					Name          string            `json:"name"`
					LatestVersion string            `json:"latest_version"`
					Metadata      map[string]string `json:"metadata"`
				}
				r.JSON(t, &body)
				if len(body) != 120 || (expand == "list" && (body[0].Metadata["dc"] == "" || body[119].Metadata["dc"] == "")) {
					t.Fatalf("Expand %q: %d layers, first %+v", expand, len(body), body[0])
				}
				// The owner's latest version of L000 is its draft; the
				// viewer's is the published one.
				if expand == "list" && (body[0].LatestVersion == body[1].LatestVersion) {
					t.Fatalf("latest versions %s %s", body[0].LatestVersion, body[1].LatestVersion)
				}
				if n := counter.Count(); n > 14 {
					t.Fatalf("%s, Expand %q: %d statements for 120 layers:\n%s", u.Email, expand, n, counter.Statements())
				} else {
					t.Logf("%s, Expand %q: %d statements", u.Email, expand, n)
				}
			}
			counter.Reset()
			g := e.GraphQL(t, u.Key, `{ layerSearch(pageSize: 120) { items { name publishedVersion { id metadata { format } }
					draftVersion { id } latestVersion { id } } } }`, nil)
			if len(g.Errors) > 0 || strings.Count(string(g.Data), `"metadata":{"format":"dc"}`) != 120 {
				t.Fatalf("%+v %.300s", g.Errors, g.Data)
			}
			if n := counter.Count(); n > 14 {
				t.Fatalf("%s, GraphQL: %d statements for 120 layers:\n%s", u.Email, n, counter.Statements())
			}
		}
	})
}

// Listing documents costs a bounded number of SQL statements: current
// versions, the caller's right to see drafts, owners and metadata load in
// one batch each.
func TestDocumentListStatementCountIsBounded(t *testing.T) {
	eachCounted(t, func(t *testing.T, e *env, counter *storetest.Counter) {
		owners := []*user{e.NewUser(t, "Owner"), e.NewUser(t, "Other")}
		viewer := e.NewUser(t, "Viewer")
		for i := 0; i < 100; i++ {
			id := seedDocument(t, e, owners[i%2], fmt.Sprintf("D%03d", i), true)
			if i%4 == 0 {
				e.Store.Client.DocumentVersion.Create().SetDocumentID(id).SetName("draft").SetDatasourceID(1).SetFileKey("documents/y").
					SetFileName("draft.pdf").SetExtension("pdf").SetCreatedBy(owners[i%2].ID).ExecX(t.Context())
			}
		}
		for _, u := range []*user{owners[0], viewer} {
			counter.Reset()
			r := e.Do(t, req{Path: "/documents/?page_size=100", Key: u.Key})
			expectStatus(t, r, http.StatusOK)
			var body []struct {
				Name string `json:"name"`
				User struct {
					ID int `json:"id"`
				} `json:"user"`
			}
			r.JSON(t, &body)
			if len(body) != 100 || body[0].User.ID != owners[0].ID || body[1].User.ID != owners[1].ID {
				t.Fatalf("%d documents, first %+v %+v", len(body), body[0], body[1])
			}
			if n := counter.Count(); n > 12 {
				t.Fatalf("%s: %d statements for 100 documents:\n%s", u.Email, n, counter.Statements())
			}
			counter.Reset()
			g := e.GraphQL(t, u.Key, `{ documentSearch(pageSize: 100) { items { name publishedVersion { id metadata { format } }
					draftVersion { id } latestVersion { id } } } }`, nil)
			drafts := strings.Count(string(g.Data), `"draftVersion":{`)
			if len(g.Errors) > 0 || (u == viewer) != (drafts == 0) {
				t.Fatalf("%d drafts shown to %s: %+v %.300s", drafts, u.Email, g.Errors, g.Data)
			}
			if n := counter.Count(); n > 12 {
				t.Fatalf("%s, GraphQL: %d statements for 100 documents:\n%s", u.Email, n, counter.Statements())
			}
		}
	})
}

// Listing catalog items costs a bounded number of SQL statements: current
// versions, edit rights, owners, groups, metadata and the caller's stars
// and pins load in one batch each.
func TestItemListStatementCountIsBounded(t *testing.T) {
	eachCounted(t, func(t *testing.T, e *env, counter *storetest.Counter) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		for i := 0; i < 60; i++ {
			it := createItem(t, e, pub, map[string]any{"title": fmt.Sprintf("Item %02d", i), "link_url": "https://example.org/"})
			it = publishItem(t, e, pub, it.ThisVersion)
			if i%5 == 0 {
				expectStatus(t, e.Do(t, req{Method: "POST", Path: it.URL + "star/", Key: reader.Key}), http.StatusNoContent)
				expectStatus(t, e.Do(t, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key}), http.StatusCreated)
			}
		}
		for _, u := range []*user{pub, reader} {
			counter.Reset()
			r := e.Do(t, req{Path: "/items/?page_size=60", Key: u.Key, Header: map[string]string{"Expand": "list"}})
			expectStatus(t, r, http.StatusOK)
			var body []itemRecord
			r.JSON(t, &body)
			if len(body) != 60 || body[0].User.ID != pub.ID || body[0].IsStarred != (u == reader) || body[1].IsStarred {
				t.Fatalf("%d items, first %+v", len(body), body[0])
			}
			if n := counter.Count(); n > 14 {
				t.Fatalf("%s: %d statements for 60 items:\n%s", u.Email, n, counter.Statements())
			}
			counter.Reset()
			g := e.GraphQL(t, u.Key, `{ catalogItemSearch(pageSize: 60) { items { isStarred isPinned publishedVersion { id metadata { format } }
					draftVersion { id } latestVersion { id } } } }`, nil)
			drafts := strings.Count(string(g.Data), `"draftVersion":{`)
			if len(g.Errors) > 0 || (u == reader) != (drafts == 0) || strings.Count(string(g.Data), `"isStarred":true`) != map[bool]int{true: 12, false: 0}[u == reader] {
				t.Fatalf("%d drafts for %s: %+v %.300s", drafts, u.Email, g.Errors, g.Data)
			}
			if n := counter.Count(); n > 14 {
				t.Fatalf("%s, GraphQL: %d statements for 60 items:\n%s", u.Email, n, counter.Statements())
			}
		}
	})
}
