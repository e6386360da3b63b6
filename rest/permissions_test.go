package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/server/servertest"
)

type permRecord struct {
	ID         string `json:"id"`
	URL        string `json:"url"`
	Permission string `json:"permission"`
	Group      *struct {
		ID   any    `json:"id"`
		Name string `json:"name"`
	} `json:"group"`
	User *struct {
		ID int `json:"id"`
	} `json:"user"`
}

func permIDs(ps []permRecord) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.ID+"="+p.Permission)
	}
	return strings.Join(s, " ")
}

// The permission endpoints of api-shapes §9 on each dataset kind: list,
// add (201 + Location), one grant, change, remove, replace all (200).
func TestDatasetPermissionEndpoints(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		other := e.NewUser(t, "Other")
		admin := e.NewUser(t, "Root", servertest.SiteAdmin)
		g := createGroup(t, e, admin, map[string]any{"name": "Surveyors", "country": "NZ"})
		for _, d := range publishedDatasets(t, e, pub) {
			t.Run(d.name, func(t *testing.T) {
				perms := d.url + "permissions/"
				// New datasets: the creator administers, everyone downloads.
				r := e.Do(t, req{Path: perms, Key: pub.Key})
				expectStatus(t, r, http.StatusOK)
				var ps []permRecord
				r.JSON(t, &ps)
				want := fmt.Sprintf("group.everyone=download user.%d=admin", pub.ID)
				if permIDs(ps) != want || ps[0].Group == nil || ps[0].Group.Name != "Everyone" || ps[1].User == nil || ps[1].User.ID != pub.ID {
					t.Fatalf("defaults %s, want %s", r.Body, want)
				}
				if ps[1].URL != fmt.Sprintf("%s/%s/%s/permissions/user.%d/", e.API, d.name, d.ref, pub.ID) || !strings.HasPrefix(ps[1].URL, d.url) {
					t.Fatalf("url %s", ps[1].URL)
				}

				// Add a group grant, as PC sends it: the group id as a string.
				r = e.Do(t, req{Method: "POST", Path: perms, Key: pub.Key, Body: map[string]any{"permission": "download", "group": fmt.Sprint(g.ID)}})
				expectStatus(t, r, http.StatusCreated)
				var p permRecord
				r.JSON(t, &p)
				if p.ID != fmt.Sprintf("group.%d", g.ID) || r.Header.Get("Location") != p.URL || p.Group == nil || p.Group.Name != "Surveyors" {
					t.Fatalf("created %s (Location %s)", r.Body, r.Header.Get("Location"))
				}
				expectStatus(t, e.Do(t, req{Path: p.URL, Key: pub.Key}), http.StatusOK)
				// A bare group id reaches the same grant.
				expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("%s%d/", perms, g.ID), Key: pub.Key}), http.StatusOK)
				// The same group again: 409.
				expectStatus(t, e.Do(t, req{Method: "POST", Path: perms, Key: pub.Key, Body: map[string]any{"permission": "view", "group": g.ID}}), http.StatusConflict)

				// Bad input: 400 with a message, nothing written.
				before := e.Store.Client.DatasetPermission.Query().CountX(t.Context())
				for name, body := range map[string]any{
					"UnknownLevel": map[string]any{"permission": "owner", "user": other.ID},
					"Both":         map[string]any{"permission": "view", "user": other.ID, "group": g.ID},
					"Neither":      map[string]any{"permission": "view"},
					"NoSuchGroup":  map[string]any{"permission": "view", "group": 99999},
					"NoSuchUser":   map[string]any{"permission": "view", "user": "99999"},
					"BadGroupName": map[string]any{"permission": "view", "group": "nobody"},
					"BadUserType":  map[string]any{"permission": "view", "user": true},
				} {
					r := e.Do(t, req{Method: "POST", Path: perms, Key: pub.Key, Body: body})
					if r.Status != http.StatusBadRequest || len(r.Body) < 10 {
						t.Fatalf("%s: %d %s", name, r.Status, r.Body)
					}
				}
				r = e.Do(t, req{Method: "PUT", Path: perms, Key: pub.Key, Body: []map[string]any{
					{"permission": "view", "group": "everyone"}, {"permission": "admin", "group": "everyone"}}})
				expectStatus(t, r, http.StatusBadRequest)
				if !strings.Contains(string(r.Body), "group.everyone is listed twice") {
					t.Fatalf("duplicates: %s", r.Body)
				}
				if e.Store.Client.DatasetPermission.Query().CountX(t.Context()) != before {
					t.Fatal("a refused request wrote permissions")
				}

				// Change one grant; remove it; 404 after.
				r = e.Do(t, req{Method: "PUT", Path: p.URL, Key: pub.Key, Body: map[string]any{"permission": "edit"}})
				expectStatus(t, r, http.StatusOK)
				r.JSON(t, &p)
				if p.Permission != "edit" {
					t.Fatalf("changed %s", r.Body)
				}
				expectStatus(t, e.Do(t, req{Method: "DELETE", Path: p.URL, Key: pub.Key}), http.StatusNoContent)
				expectStatus(t, e.Do(t, req{Path: p.URL, Key: pub.Key}), http.StatusNotFound)
				expectStatus(t, e.Do(t, req{Path: perms + "robot.1/", Key: pub.Key}), http.StatusNotFound)

				// Replace all, PC's own example body: must be 200.
				r = e.Do(t, req{Method: "PUT", Path: perms, Key: pub.Key, Body: []map[string]any{
					{"permission": "view", "group": "everyone"},
					{"permission": "admin", "user": pub.ID},
					{"permission": "admin", "group": "administrators"},
					{"permission": "download", "user": fmt.Sprint(other.ID)},
				}})
				expectStatus(t, r, http.StatusOK)
				r.JSON(t, &ps)
				want = fmt.Sprintf("group.everyone=view group.administrators=admin user.%d=admin user.%d=download", min(pub.ID, other.ID), max(pub.ID, other.ID))
				want = strings.NewReplacer(fmt.Sprintf("user.%d=admin user.%d=download", other.ID, pub.ID), fmt.Sprintf("user.%d=download user.%d=admin", other.ID, pub.ID)).Replace(want)
				if permIDs(ps) != want {
					t.Fatalf("replaced: %s, want %s", permIDs(ps), want)
				}

				// GraphQL's mutations change the same grants.
				vars := d.gqlVars()
				vars["key"], vars["uid"] = fmt.Sprintf("user.%d", other.ID), other.ID
				for _, c := range []struct{ q, want string }{
					{`mutation($type: DatasetType!, $id: ID!, $key: String!) { updateDatasetPermission(type: $type, id: $id, key: $key, permission: edit) { key permission } }`,
						fmt.Sprintf(`{"updateDatasetPermission":{"key":"user.%d","permission":"edit"}}`, other.ID)},
					{`mutation($type: DatasetType!, $id: ID!, $key: String!) { revokeDatasetPermission(type: $type, id: $id, key: $key) }`,
						`{"revokeDatasetPermission":true}`},
					{`mutation($type: DatasetType!, $id: ID!, $uid: ID!) { grantDatasetPermission(type: $type, id: $id, input: {user: $uid, permission: download}) { key permission } }`,
						fmt.Sprintf(`{"grantDatasetPermission":{"key":"user.%d","permission":"download"}}`, other.ID)},
				} {
					if g := e.GraphQL(t, pub.Key, c.q, vars); len(g.Errors) > 0 || string(g.Data) != c.want {
						t.Fatalf("%s: %s %v", c.q, g.Data, g.Errors)
					}
				}
				r = e.Do(t, req{Path: fmt.Sprintf("%suser.%d/", perms, other.ID), Key: pub.Key})
				expectStatus(t, r, http.StatusOK)
				if r.JSON(t, &p); p.Permission != "download" {
					t.Fatalf("after GraphQL %s", r.Body)
				}

				// Who may manage: admins only; others who see it get 403.
				authMatrix(t, e, req{Path: perms}, readScope(d.name), other)
				expectStatus(t, e.Do(t, req{Method: "PUT", Path: perms, Key: other.Key, Body: []any{}}), http.StatusForbidden)
				expectStatus(t, e.Do(t, req{Path: perms, Key: admin.Key}), http.StatusOK)
				// A draft-only dataset is invisible to others: 404, not 403.
				stranger := e.NewUser(t, "Stranger")
				expectStatus(t, e.Do(t, req{Method: "PUT", Path: perms, Key: pub.Key, Body: []map[string]any{{"permission": "admin", "user": pub.ID}}}), http.StatusOK)
				expectStatus(t, e.Do(t, req{Path: perms, Key: stranger.Key}), http.StatusNotFound)
				expectStatus(t, e.Do(t, req{Path: d.url, Key: stranger.Key}), http.StatusNotFound)
			})
		}
		// Deleting a dataset removes its permissions.
		var doc struct{ ID int }
		r := e.Do(t, req{Path: "/documents/", Key: pub.Key})
		var docs []struct{ ID int }
		r.JSON(t, &docs)
		doc.ID = docs[0].ID
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/documents/%d/", doc.ID), Key: pub.Key}), http.StatusNoContent)
		if n := e.Store.Client.DatasetPermission.Query().Where(datasetpermission.DatasetKindEQ(datasetpermission.DatasetKindDocument)).CountX(t.Context()); n != 0 {
			t.Fatalf("%d permissions left on a deleted document", n)
		}
	})
}

// collectionScopes are the read and write scopes of each collection with
// permissions.
var collectionScopes = map[string][2]string{
	"layers": {"layers:read", "layers:write"}, "tables": {"layers:read", "layers:write"},
	"documents": {"documents:read", "documents:write"}, "sets": {"sets:read", "sets:write"},
	"items": {"catalog", "items:write"},
}

func readScope(collection string) string  { return collectionScopes[collection][0] }
func writeScope(collection string) string { return collectionScopes[collection][1] }

// The permission matrix of issue 4: for each dataset kind and each caller,
// which reads and writes succeed, over REST and GraphQL with the same
// answers.
func TestDatasetPermissionMatrix(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		viewer := e.NewUser(t, "Viewer")     // through a group granted view
		downloader := e.NewUser(t, "Downer") // a user grant of download
		editor := e.NewUser(t, "Editor")     // a user grant of edit
		dadmin := e.NewUser(t, "Dadmin")     // through a group granted admin
		stranger := e.NewUser(t, "Stranger") // signed in, no grant
		root := e.NewUser(t, "Root", servertest.SiteAdmin)
		viewers := createGroup(t, e, root, map[string]any{"name": "Viewers", "country": "NZ"})
		admins := createGroup(t, e, root, map[string]any{"name": "Dataset admins", "country": "NZ"})
		addMember(t, e, root, viewers.ID, viewer.ID, string(groupmembership.PermissionMember))
		addMember(t, e, root, admins.ID, dadmin.ID, string(groupmembership.PermissionMember))

		callers := []struct {
			name string
			key  string
		}{
			{"anonymous", ""}, {"stranger", stranger.Key}, {"view", viewer.Key}, {"download", downloader.Key},
			{"edit", editor.Key}, {"admin", dadmin.Key}, {"siteadmin", root.Key},
		}
		for _, d := range publishedDatasets(t, e, pub) {
			expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.url + "permissions/", Key: pub.Key, Body: []map[string]any{
				{"permission": "view", "group": viewers.ID},
				{"permission": "download", "user": downloader.ID},
				{"permission": "edit", "user": editor.ID},
				{"permission": "admin", "group": admins.ID},
			}}), http.StatusOK)

			gqlID := d.gqlVars()
			readQ, draftQ, editQ, versionsQ := d.gqlOps()
			permsQ := `query($id: ID!, $type: DatasetType!) { datasetPermissions(type: $type, id: $id) { key } }`

			// Each operation: the REST request and its GraphQL twin, and the
			// expected status per caller (anonymous, stranger, view,
			// download, edit, admin, site admin).
			ops := []struct {
				name string
				rest req
				gql  string
				want [7]int
			}{
				{"read published", req{Path: d.url}, readQ, [7]int{404, 404, 200, 200, 200, 200, 200}},
				{"read draft", req{Path: d.draftURL}, draftQ, [7]int{404, 404, 404, 404, 200, 200, 200}},
				{"edit draft", req{Method: "PUT", Path: d.draftURL, Body: map[string]any{"description": "x"}}, editQ, [7]int{401, 404, 403, 403, 200, 200, 200}},
				{"list permissions", req{Path: d.url + "permissions/"}, permsQ, [7]int{401, 404, 403, 403, 403, 200, 200}},
			}
			if d.name == "documents" {
				ops = append(ops, struct {
					name string
					rest req
					gql  string
					want [7]int
				}{"download", req{Path: d.url + "download/"}, "", [7]int{404, 404, 403, 200, 200, 200, 200}})
			}
			for _, op := range ops {
				for i, c := range callers {
					rq := op.rest
					rq.Key = c.key
					r := e.Do(t, rq)
					if r.Status != op.want[i] {
						t.Errorf("%s: %s by %s: REST %d, want %d (%s)", d.name, op.name, c.name, r.Status, op.want[i], r.Body)
					}
					if op.gql == "" {
						continue
					}
					g := e.GraphQL(t, c.key, op.gql, gqlID)
					if got, want := gqlStatus(g.Errors), op.want[i]; got != want {
						t.Errorf("%s: %s by %s: GraphQL %d (%v), REST says %d", d.name, op.name, c.name, got, g.Errors, want)
					}
				}
			}
			// Lists show the dataset to those who may read it, and the
			// caller's own permission.
			for i, c := range callers {
				r := e.Do(t, req{Path: "/" + d.name + "/", Key: c.key})
				expectStatus(t, r, http.StatusOK)
				if listed := d.listedIn(r.Body); listed != (i >= 2) {
					t.Errorf("%s list by %s: listed=%v", d.name, c.name, listed)
				}
			}
			g := e.GraphQL(t, editor.Key, strings.Replace(readQ, "{ id }", "{ id myPermission permissions { key } }", 1), gqlID)
			if !strings.Contains(string(g.Data), `"myPermission":"edit","permissions":null`) {
				t.Errorf("%s: editor sees %s %v", d.name, g.Data, g.Errors)
			}
			// Version lists hide the draft from readers.
			for key, wantDraft := range map[string]bool{viewer.Key: false, downloader.Key: false, editor.Key: true} {
				g := e.GraphQL(t, key, versionsQ, gqlID)
				if got := strings.Contains(string(g.Data), fmt.Sprintf(`{"id":"%d"}`, d.draftID)); got != wantDraft || len(g.Errors) > 0 {
					t.Errorf("%s: versions %s %v, want draft listed %v", d.name, g.Data, g.Errors, wantDraft)
				}
			}
			// Deleting needs admin.
			expectStatus(t, e.Do(t, req{Method: "DELETE", Path: d.url, Key: editor.Key}), http.StatusForbidden)
			expectStatus(t, e.Do(t, req{Method: "DELETE", Path: d.url, Key: dadmin.Key}), http.StatusNoContent)
		}
	})
}

// gqlStatus maps a GraphQL answer onto the REST status it stands for.
func gqlStatus(errs []servertest.GraphQLError) int {
	if len(errs) == 0 {
		return http.StatusOK
	}
	switch errs[0].Code() {
	case "UNAUTHENTICATED":
		return http.StatusUnauthorized
	case "FORBIDDEN":
		return http.StatusForbidden
	case "NOT_FOUND":
		return http.StatusNotFound
	case "BAD_REQUEST":
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
