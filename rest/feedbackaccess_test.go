package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/server/servertest"
)

// Issue: "is_internal updates visible only to administrators" (site
// administrators and those who may edit the ticketed object), in REST and
// GraphQL alike.
func TestFeedbackInternalUpdates(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		ann := e.NewUser(t, "Ann")
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		lid := seedFeedbackLayer(t, e, owner, layer.TypeLayer, true)
		tk := postFeedback(t, e, ann.Key, map[string]any{"description": "Broken", "status": "open",
			"ticketed_object": map[string]any{"type": "layer", "id": lid}})
		putFeedback(t, e, ann.Key, tk.ID, map[string]any{"description": "public"})
		internal := putFeedback(t, e, owner.Key, tk.ID, map[string]any{"description": "between us", "is_internal": true})
		if !internal.IsInternal {
			t.Fatalf("internal %+v", internal)
		}
		expectDetail(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", tk.ID), Key: ann.Key, Body: map[string]any{"is_internal": true}}),
			http.StatusForbidden, "internal")

		for _, c := range []struct {
			who  *user
			want int
		}{{ann, 1}, {owner, 2}, {admin, 2}} {
			got := getFeedback(t, e, c.who.Key, tk.ID)
			if len(*got.Updates) != c.want {
				t.Fatalf("%s sees %d updates, want %d", c.who.FirstName, len(*got.Updates), c.want)
			}
			g := e.GraphQL(t, c.who.Key, `query($id: ID!) { feedback(id: $id) { updates { id isInternal description } } }`, map[string]any{"id": tk.ID})
			var data struct {
				Feedback struct{ Updates []struct{ IsInternal bool } }
			}
			json.Unmarshal(g.Data, &data)
			if len(g.Errors) > 0 || len(data.Feedback.Updates) != c.want {
				t.Fatalf("GraphQL for %s: %s %+v", c.who.FirstName, g.Data, g.Errors)
			}
			if c.who == ann && (strings.Contains(string(g.Data), "between us") || data.Feedback.Updates[0].IsInternal) {
				t.Fatalf("internal update leaked: %s", g.Data)
			}
		}
	})
}

// Visibility: comments are seen by whoever sees their object; tickets by
// their author, assignee and administrators. DELETE: "204" for the author,
// the object's editors and site administrators.
func TestFeedbackVisibilityAndDelete(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		ann := e.NewUser(t, "Ann")
		bob := e.NewUser(t, "Bob")
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		pub := seedFeedbackLayer(t, e, owner, layer.TypeLayer, true)
		draft := seedFeedbackLayer(t, e, owner, layer.TypeLayer, false)
		on := func(id int) map[string]any { return map[string]any{"type": "layer", "id": id} }

		comment := postFeedback(t, e, ann.Key, map[string]any{"description": "c", "ticketed_object": on(pub)})
		ticket := postFeedback(t, e, ann.Key, map[string]any{"description": "t", "status": "open", "ticketed_object": on(pub)})
		onDraft := postFeedback(t, e, owner.Key, map[string]any{"description": "d", "ticketed_object": on(draft)})
		general := postFeedback(t, e, ann.Key, map[string]any{"description": "g"})

		path := func(id int) string { return fmt.Sprintf("/comments/%d/", id) }
		sees := map[string][]int{
			"anonymous": {comment.ID},
			"bob":       {comment.ID},
			"ann":       {general.ID, ticket.ID, comment.ID},
			"owner":     {onDraft.ID, ticket.ID, comment.ID},
			"admin":     {general.ID, onDraft.ID, ticket.ID, comment.ID},
		}
		keys := map[string]string{"anonymous": "", "bob": bob.Key, "ann": ann.Key, "owner": owner.Key, "admin": admin.Key}
		for who, want := range sees {
			ids, _ := listFeedback(t, e, keys[who], "")
			if fmt.Sprint(ids) != fmt.Sprint(want) {
				t.Fatalf("%s lists %v, want %v (newest first)", who, ids, want)
			}
			for _, id := range []int{comment.ID, ticket.ID, onDraft.ID, general.ID} {
				status := http.StatusNotFound
				for _, w := range want {
					if w == id {
						status = http.StatusOK
					}
				}
				expectStatus(t, e.Do(t, req{Path: path(id), Key: keys[who]}), status)
			}
		}
		expectDetail(t, e.Do(t, req{Path: path(comment.ID), Key: e.Token(t, bob.User, "query")}), http.StatusUnauthorized, "feedback:read")
		expectStatus(t, e.Do(t, req{Path: "/comments/999999/", Key: admin.Key}), http.StatusNotFound)

		// DELETE: anonymous 401, wrong scope 401, a stranger who sees the
		// comment 403, one who does not 404.
		authMatrix(t, e, req{Method: "DELETE", Path: path(comment.ID)}, "feedback:write", bob)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: path(ticket.ID), Key: bob.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: path(comment.ID), Key: ann.Key}), http.StatusNoContent)
		putFeedback(t, e, ann.Key, ticket.ID, map[string]any{"description": "with an update"})
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: path(ticket.ID), Key: owner.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: path(general.ID), Key: admin.Key}), http.StatusNoContent)
		for _, id := range []int{comment.ID, ticket.ID, general.ID} {
			expectStatus(t, e.Do(t, req{Path: path(id), Key: admin.Key}), http.StatusNotFound)
		}
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: path(comment.ID), Key: ann.Key}), http.StatusNotFound)
	})
}

// Spec, Conventions for list endpoints: paging headers, the page_size cap,
// and 400 for recognised parameters with bad values.
func TestFeedbackList(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		lid := seedFeedbackLayer(t, e, owner, layer.TypeLayer, true)
		tid := seedFeedbackLayer(t, e, owner, layer.TypeTable, true)
		for i := 0; i < 5; i++ {
			postFeedback(t, e, owner.Key, map[string]any{"description": fmt.Sprint(i), "ticketed_object": map[string]any{"type": "layer", "id": lid}})
		}
		onTable := postFeedback(t, e, owner.Key, map[string]any{"description": "t", "status": "open", "ticketed_object": map[string]any{"type": "table", "id": tid}})

		ids, resp := listFeedback(t, e, owner.Key, "?page=2&page_size=2")
		if len(ids) != 2 || resp.Header.Get("X-Resource-Range") != "2-4/6" || resp.Header.Get("X-Paginate-By") != "2" ||
			!strings.Contains(resp.Header.Get("Link"), `rel="page-next"`) || !strings.Contains(resp.Header.Get("Link"), `page=3`) ||
			resp.Header.Get("Accepted-OAuth-Scopes") != "feedback:read" {
			t.Fatalf("page 2: %v %v", ids, resp.Header)
		}
		ids, _ = listFeedback(t, e, owner.Key, "?type=ticket")
		if fmt.Sprint(ids) != fmt.Sprintf("[%d]", onTable.ID) {
			t.Fatalf("tickets %v", ids)
		}
		ids, _ = listFeedback(t, e, owner.Key, "?ticketed_object.type=table")
		all, _ := listFeedback(t, e, owner.Key, "?status=open&status=onhold")
		if fmt.Sprint(ids) != fmt.Sprint(all) || len(ids) != 1 {
			t.Fatalf("by table %v, by status %v", ids, all)
		}
		ids, _ = listFeedback(t, e, owner.Key, fmt.Sprintf("?ticketed_object.type=layer&ticketed_object.id=%d&type=comment&unknown=1", lid))
		if len(ids) != 5 {
			t.Fatalf("layer comments %v", ids)
		}
		for q, field := range map[string]string{
			"?page_size=201":              "page_size",
			"?page=0":                     "page",
			"?type=issue":                 "type",
			"?status=bogus":               "status",
			"?ticketed_object.type=repo":  "ticketed_object.type",
			"?ticketed_object.id=1":       "ticketed_object.id",
			"?ticketed_object.id=x":       "ticketed_object.id",
			"?ticketed_object.type=layer": "",
		} {
			r := e.Do(t, req{Path: "/comments/" + q, Key: owner.Key})
			if field == "" {
				expectStatus(t, r, http.StatusOK)
				continue
			}
			expectStatus(t, r, http.StatusBadRequest)
			var fields map[string][]string
			r.JSON(t, &fields)
			if len(fields[field]) == 0 {
				t.Fatalf("%s: %s, want a message for %s", q, r.Body, field)
			}
		}
		expectDetail(t, e.Do(t, req{Path: "/comments/", Key: e.Token(t, owner.User, "query")}), http.StatusUnauthorized, "feedback:read")
	})
}
