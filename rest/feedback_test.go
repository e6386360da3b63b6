package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/internal/server/servertest"
)

// Spec, Feedback: "POST /comments/ | required description; optional title,
// attachments (array of document IDs), permalink_url, ticketed_object |
// 201 feedback item with updates".
func TestCreateFeedback(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		ann := e.NewUser(t, "Ann")
		lid := seedFeedbackLayer(t, e, owner, layer.TypeLayer, true)
		draft := seedFeedbackLayer(t, e, owner, layer.TypeLayer, false)
		doc := seedDocument(t, e, owner, "Survey", true)
		hidden := seedDocument(t, e, owner, "Secret", false)

		r := e.Do(t, req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: map[string]any{
			"title": "Wrong road name", "description": "The **main** road is misnamed.",
			"attachments": []int{doc}, "permalink_url": "https://example.com/map#12/-41/174",
			"ticketed_object": map[string]any{"type": "layer", "id": lid}}})
		expectStatus(t, r, http.StatusCreated)
		if r.Header.Get("Accepted-OAuth-Scopes") != "feedback:write" {
			t.Fatalf("Accepted-OAuth-Scopes %q", r.Header.Get("Accepted-OAuth-Scopes"))
		}
		var f feedbackItem
		r.JSON(t, &f)
		if f.ID == 0 || r.Header.Get("Location") != f.URL || f.Status != "" || f.Title != "Wrong road name" ||
			f.DescriptionHTML != "<p>The <strong>main</strong> road is misnamed.</p>" ||
			f.CreatedBy == nil || f.CreatedBy.ID != ann.ID || f.CreatedBy.FirstName != "Ann" || f.CreatedBy.LastName != "Tester" ||
			!strings.HasSuffix(f.HTMLURL, fmt.Sprintf("/comments/%d/", f.ID)) || f.Assignee != nil ||
			f.TicketedObject == nil || f.TicketedObject.Type != "layer" || f.TicketedObject.ID != float64(lid) ||
			!strings.HasSuffix(f.TicketedObject.HTMLURL, fmt.Sprintf("/layers/%d/", lid)) ||
			f.Updates == nil || len(*f.Updates) != 0 || f.PermalinkURL != "https://example.com/map#12/-41/174" {
			t.Fatalf("created %s", r.Body)
		}
		for _, k := range []string{`"avatar_url":null`, `"mapstream":null`, `"sub_status":""`, `"tags":""`, `"updated_at"`, `"created_at"`} {
			if !strings.Contains(string(r.Body), k) {
				t.Fatalf("created %s: want %s", r.Body, k)
			}
		}
		if len(f.Attachments) != 1 || f.Attachments[0].ID != doc || f.Attachments[0].Title != "Survey" || f.Attachments[0].Extension != "pdf" ||
			f.Attachments[0].FileSize != 2048 || f.Attachments[0].FileSizeFormatted != "2.0 kB" ||
			!strings.HasSuffix(f.Attachments[0].DownloadURL, fmt.Sprintf("/documents/%d/download/", doc)) {
			t.Fatalf("attachments %s", r.Body)
		}

		// A new ticket starts open.
		tk := postFeedback(t, e, ann.Key, map[string]any{"description": "Fix it", "status": "open",
			"ticketed_object": map[string]any{"type": "table", "id": seedFeedbackLayer(t, e, owner, layer.TypeTable, true)}})
		if tk.Status != "open" || tk.TicketedObject.Type != "table" || !strings.Contains(tk.TicketedObject.HTMLURL, "/tables/") {
			t.Fatalf("ticket %+v", tk)
		}
		// Feedback about nothing in particular, and about a document.
		postFeedback(t, e, ann.Key, map[string]any{"description": "Nice site"})
		postFeedback(t, e, ann.Key, map[string]any{"description": "Typo", "ticketed_object": map[string]any{"type": "document", "id": doc}})

		bad := []struct {
			body        map[string]any
			field, want string
		}{
			{map[string]any{"title": "no description"}, "description", "This field is required."},
			{map[string]any{"description": "   "}, "description", "This field is required."},
			{map[string]any{"description": "x", "status": "onhold"}, "status", "starts open"},
			{map[string]any{"description": "x", "ticketed_object": map[string]any{"type": "layer", "id": draft}}, "ticketed_object", "that you can see"},
			{map[string]any{"description": "x", "ticketed_object": map[string]any{"type": "layer", "id": 999999}}, "ticketed_object", "that you can see"},
			{map[string]any{"description": "x", "ticketed_object": map[string]any{"type": "repo", "id": 1}}, "ticketed_object.type", "unsupported ticketed_object type"},
			{map[string]any{"description": "x", "ticketed_object": map[string]any{"type": "layer"}}, "ticketed_object.id", "valid id"},
			{map[string]any{"description": "x", "attachments": []int{hidden}}, "attachments", "that you can see"},
			{map[string]any{"description": "x", "permalink_url": "javascript:alert(1)"}, "permalink_url", "http"},
			{map[string]any{"description": "x", "title": strings.Repeat("t", 501)}, "title", "500"},
		}
		for _, b := range bad {
			expectField(t, e.Do(t, req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: b.body}), b.field, b.want)
		}
		// The draft layer and a layer that does not exist get the same answer.
		r1 := e.Do(t, req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: map[string]any{"description": "x", "ticketed_object": map[string]any{"type": "layer", "id": draft}}})
		r2 := e.Do(t, req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: map[string]any{"description": "x", "ticketed_object": map[string]any{"type": "layer", "id": draft + 1000}}})
		if strings.ReplaceAll(string(r1.Body), fmt.Sprint(draft), "N") != strings.ReplaceAll(string(r2.Body), fmt.Sprint(draft+1000), "N") {
			t.Fatalf("existence leaks: %s vs %s", r1.Body, r2.Body)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: "{not json"}), http.StatusBadRequest)
		// Anonymous callers may not create; a token without feedback:write
		// gets 401 naming it.
		authMatrix(t, e, req{Method: "POST", Path: "/comments/", Body: map[string]any{"description": "x"}}, "feedback:write", nil)
		wrong := e.Token(t, ann.User, "feedback:read")
		expectDetail(t, e.Do(t, req{Method: "POST", Path: "/comments/", Key: wrong, Body: map[string]any{"description": "x"}}), http.StatusUnauthorized, "feedback:write")
		if n := e.Store.Client.Feedback.Query().CountX(context.Background()); n != 4 {
			t.Fatalf("%d items stored, want 4: refused requests write nothing", n)
		}
	})
}

// Spec, States and transitions, every feedback row, with the exact
// changes contents.
func TestFeedbackTransitions(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		ann := e.NewUser(t, "Ann")
		bob := e.NewUser(t, "Bob")
		lid := seedFeedbackLayer(t, e, owner, layer.TypeLayer, true)
		on := map[string]any{"type": "layer", "id": lid}

		// "comment (blank status) | update with non-blank status | any |
		// ticket with that status | appears as ticket, not in item comment
		// pages"
		c := postFeedback(t, e, ann.Key, map[string]any{"description": "A comment", "ticketed_object": on})
		comments, _ := listFeedback(t, e, ann.Key, fmt.Sprintf("?type=comment&ticketed_object.type=layer&ticketed_object.id=%d", lid))
		if fmt.Sprint(comments) != fmt.Sprintf("[%d]", c.ID) {
			t.Fatalf("comment page %v", comments)
		}
		u := putFeedback(t, e, ann.Key, c.ID, map[string]any{"status": "in-progress"})
		expectChanges(t, u, `{"status": {"from": "", "to": "in-progress"}}`)
		if got := getFeedback(t, e, ann.Key, c.ID); got.Status != "in-progress" || len(*got.Updates) != 1 || (*got.Updates)[0].ID != u.ID {
			t.Fatalf("after becoming a ticket: %+v", got)
		}
		comments, _ = listFeedback(t, e, ann.Key, fmt.Sprintf("?type=comment&ticketed_object.type=layer&ticketed_object.id=%d", lid))
		tickets, _ := listFeedback(t, e, ann.Key, fmt.Sprintf("?type=ticket&ticketed_object.type=layer&ticketed_object.id=%d", lid))
		if len(comments) != 0 || fmt.Sprint(tickets) != fmt.Sprintf("[%d]", c.ID) {
			t.Fatalf("comments %v tickets %v", comments, tickets)
		}

		// "ticket open | PUT with status = onhold | | onhold | update
		// record changes holds from open to onhold"
		tk := postFeedback(t, e, ann.Key, map[string]any{"description": "A ticket", "status": "open", "ticketed_object": on})
		u = putFeedback(t, e, ann.Key, tk.ID, map[string]any{"status": "onhold"})
		expectChanges(t, u, `{"status": {"from": "open", "to": "onhold"}}`)
		if u.CreatedBy == nil || u.CreatedBy.ID != ann.ID || u.IsInternal || u.PermalinkURL != nil || len(u.Attachments) != 0 {
			t.Fatalf("update record %+v", u)
		}

		// "any | PUT without property changes | | unchanged | adds an
		// update record with empty changes"
		for _, body := range []map[string]any{{}, {"description": "Any news?"}, {"status": "onhold"}, {"title": ""}} {
			before := len(*getFeedback(t, e, ann.Key, tk.ID).Updates)
			u = putFeedback(t, e, ann.Key, tk.ID, body)
			expectChanges(t, u, `{}`)
			after := getFeedback(t, e, ann.Key, tk.ID)
			if len(*after.Updates) != before+1 || after.Status != "onhold" {
				t.Fatalf("%v: %d updates then %d, status %s", body, before, len(*after.Updates), after.Status)
			}
		}
		if u := putFeedback(t, e, ann.Key, tk.ID, map[string]any{"description": "See **this**"}); u.DescriptionHTML != "<p>See <strong>this</strong></p>" {
			t.Fatalf("reply %+v", u)
		}

		// The other states, and transitions that are refused.
		u = putFeedback(t, e, owner.Key, tk.ID, map[string]any{"status": "resolved", "sub_status": "fixed in v2"})
		expectChanges(t, u, `{"status": {"from": "onhold", "to": "resolved"}, "sub_status": {"from": "", "to": "fixed in v2"}}`)
		u = putFeedback(t, e, owner.Key, tk.ID, map[string]any{"status": "closed"})
		expectChanges(t, u, `{"status": {"from": "resolved", "to": "closed"}}`)
		for _, b := range []struct{ status, want string }{
			{"onhold", "cannot move from closed to onhold"},
			{"", "cannot become a comment"},
			{"bogus", "Unknown status"},
		} {
			r := e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", tk.ID), Key: owner.Key, Body: map[string]any{"status": b.status}})
			expectField(t, r, "status", b.want)
		}
		u = putFeedback(t, e, ann.Key, tk.ID, map[string]any{"status": "open"})
		expectChanges(t, u, `{"status": {"from": "closed", "to": "open"}}`)

		// Assignees: set by administrators, to administrators, recorded.
		u = putFeedback(t, e, owner.Key, tk.ID, map[string]any{"assignee": owner.ID, "title": "Renamed"})
		expectChanges(t, u, fmt.Sprintf(`{"assignee": {"from": null, "to": %d}, "title": {"from": "", "to": "Renamed"}}`, owner.ID))
		if got := getFeedback(t, e, ann.Key, tk.ID); got.Assignee == nil || got.Assignee.ID != owner.ID || got.Assignee.FirstName != "Owner" {
			t.Fatalf("assignee %+v", got.Assignee)
		}
		expectField(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", tk.ID), Key: owner.Key, Body: map[string]any{"assignee": bob.ID}}),
			"assignee", "cannot administer")
		expectField(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", tk.ID), Key: owner.Key, Body: map[string]any{"assignee": 999999}}),
			"assignee", "no user")
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", tk.ID), Key: ann.Key, Body: map[string]any{"assignee": nil}}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", tk.ID), Key: ann.Key, Body: map[string]any{"sub_status": "x"}}), http.StatusForbidden)
		u = putFeedback(t, e, owner.Key, tk.ID, map[string]any{"assignee": nil})
		expectChanges(t, u, fmt.Sprintf(`{"assignee": {"from": %d, "to": null}}`, owner.ID))

		// The author heard of every status change made by someone else;
		// the owner of being assigned.
		ctx := context.Background()
		annNotes := e.Store.Client.Notification.Query().Where(notification.UserID(ann.ID), notification.Kind("feedback.status_changed")).CountX(ctx)
		ownerNotes := e.Store.Client.Notification.Query().Where(notification.UserID(owner.ID), notification.Kind("feedback.assigned")).CountX(ctx)
		if annNotes != 2 || ownerNotes != 0 {
			t.Fatalf("ann has %d status notifications (want 2: resolved, closed), owner %d assignment ones (want 0: assigned themselves)", annNotes, ownerNotes)
		}
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		putFeedback(t, e, owner.Key, tk.ID, map[string]any{"assignee": fmt.Sprintf("%s/users/%d/", e.API, admin.ID)})
		if n := e.Store.Client.Notification.Query().Where(notification.UserID(admin.ID), notification.Kind("feedback.assigned")).CountX(ctx); n != 1 {
			t.Fatalf("assignee notified %d times", n)
		}

		// A stranger may reply to a comment they can see, but not move it.
		c2 := postFeedback(t, e, ann.Key, map[string]any{"description": "Another", "ticketed_object": on})
		putFeedback(t, e, bob.Key, c2.ID, map[string]any{"description": "Me too"})
		expectDetail(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", c2.ID), Key: bob.Key, Body: map[string]any{"status": "open"}}),
			http.StatusForbidden, "status")
		// Tickets are hidden from strangers.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", tk.ID), Key: bob.Key, Body: map[string]any{}}), http.StatusNotFound)
		authMatrix(t, e, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", c2.ID), Body: map[string]any{"is_internal": true, "description": "x"}}, "feedback:write", bob)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: "/comments/999999/", Key: ann.Key, Body: map[string]any{}}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", tk.ID), Key: ann.Key, Body: map[string]any{"attachments": []int{999}}}), http.StatusBadRequest)
	})
}
