package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
)

// gqlFeedback is the GraphQL selection compared with the REST detail.
const gqlFeedback = `id title description descriptionHTML status subStatus tags permalinkURL
	createdBy { id firstName lastName avatarURL } assignee { id }
	ticketedObject { type id } attachments { id name }
	updates { id description descriptionHTML changes isInternal permalinkURL createdBy { id } attachments { id } }`

type gqlFeedbackItem struct {
	ID, Title, Description, DescriptionHTML, Status, SubStatus, Tags, PermalinkURL string
	CreatedBy                                                                      struct {
		ID, FirstName, LastName string
		AvatarURL               *string
	}
	Assignee       *struct{ ID string }
	TicketedObject *struct{ Type, ID string }
	Attachments    []struct{ ID, Name string }
	Updates        []gqlFeedbackRecord
}

type gqlFeedbackRecord struct {
	ID, Description, DescriptionHTML string
	Changes                          json.RawMessage
	IsInternal                       bool
	PermalinkURL                     *string
	CreatedBy                        struct{ ID string }
	Attachments                      []struct{ ID string }
}

// sameItem fails unless the REST and GraphQL forms of an item agree.
func sameItem(t *testing.T, rest feedbackItem, g gqlFeedbackItem) {
	t.Helper()
	if fmt.Sprint(rest.ID) != g.ID || rest.Title != g.Title || rest.Description != g.Description ||
		rest.DescriptionHTML != g.DescriptionHTML || rest.Status != g.Status || rest.SubStatus != g.SubStatus ||
		rest.Tags != g.Tags || rest.PermalinkURL != g.PermalinkURL || fmt.Sprint(rest.CreatedBy.ID) != g.CreatedBy.ID ||
		rest.CreatedBy.FirstName != g.CreatedBy.FirstName || rest.CreatedBy.LastName != g.CreatedBy.LastName ||
		(rest.Assignee == nil) != (g.Assignee == nil) || (rest.TicketedObject == nil) != (g.TicketedObject == nil) ||
		len(rest.Attachments) != len(g.Attachments) || len(*rest.Updates) != len(g.Updates) {
		t.Fatalf("REST %+v\nvs GraphQL %+v", rest, g)
	}
	if g.TicketedObject != nil && (rest.TicketedObject.Type != g.TicketedObject.Type || fmt.Sprint(rest.TicketedObject.ID) != g.TicketedObject.ID) {
		t.Fatalf("ticketed object REST %+v vs GraphQL %+v", rest.TicketedObject, g.TicketedObject)
	}
	for i, a := range rest.Attachments {
		if fmt.Sprint(a.ID) != g.Attachments[i].ID || a.Title != g.Attachments[i].Name {
			t.Fatalf("attachment %d: REST %+v vs GraphQL %+v", i, a, g.Attachments[i])
		}
	}
	for i, u := range *rest.Updates {
		sameRecord(t, u, g.Updates[i])
	}
}

func sameRecord(t *testing.T, rest feedbackRecord, g gqlFeedbackRecord) {
	t.Helper()
	var rc, gc any
	json.Unmarshal(rest.Changes, &rc)
	json.Unmarshal(g.Changes, &gc)
	if fmt.Sprint(rest.ID) != g.ID || rest.Description != g.Description || rest.DescriptionHTML != g.DescriptionHTML ||
		fmt.Sprint(rc) != fmt.Sprint(gc) || rest.IsInternal != g.IsInternal || fmt.Sprint(rest.CreatedBy.ID) != g.CreatedBy.ID ||
		(rest.PermalinkURL == nil) != (g.PermalinkURL == nil) || len(rest.Attachments) != len(g.Attachments) {
		t.Fatalf("update REST %+v\nvs GraphQL %+v", rest, g)
	}
}

// Issue acceptance: GraphQL and REST give the same answers: items created
// and updated through either read the same through both, lists agree, and
// refusals carry the same codes.
func TestFeedbackGraphQLAndRESTAgree(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		ann := e.NewUser(t, "Ann")
		lid := seedFeedbackLayer(t, e, owner, layer.TypeLayer, true)
		doc := seedDocument(t, e, owner, "Survey", true)

		// Created through GraphQL, updated through both.
		g := e.GraphQL(t, ann.Key, `mutation($in: CreateFeedbackInput!) { createFeedback(input: $in) { `+gqlFeedback+` } }`,
			map[string]any{"in": map[string]any{"description": "Road *gone*", "title": "Gone", "status": "open", "attachments": []int{doc},
				"permalinkURL": "https://example.com/x", "ticketedObject": map[string]any{"type": "layer", "id": lid}}})
		var created struct{ CreateFeedback gqlFeedbackItem }
		if json.Unmarshal(g.Data, &created); len(g.Errors) > 0 || created.CreateFeedback.Status != "open" {
			t.Fatalf("create %s %+v", g.Data, g.Errors)
		}
		id := created.CreateFeedback.ID
		sameItem(t, getFeedback(t, e, ann.Key, atoi(t, id)), created.CreateFeedback)

		g = e.GraphQL(t, owner.Key, `mutation($id: ID!, $in: UpdateFeedbackInput!) { updateFeedback(id: $id, input: $in) {
			id description descriptionHTML changes isInternal permalinkURL createdBy { id } attachments { id } } }`,
			map[string]any{"id": id, "in": map[string]any{"status": "onhold", "assigneeID": owner.ID, "description": "Waiting on data", "attachments": []int{doc}}})
		var updated struct{ UpdateFeedback gqlFeedbackRecord }
		if json.Unmarshal(g.Data, &updated); len(g.Errors) > 0 {
			t.Fatalf("update %s %+v", g.Data, g.Errors)
		}
		var changes any
		json.Unmarshal(updated.UpdateFeedback.Changes, &changes)
		if fmt.Sprint(changes) != fmt.Sprintf("map[assignee:map[from:<nil> to:%d] status:map[from:open to:onhold]]", owner.ID) {
			t.Fatalf("GraphQL changes %s", updated.UpdateFeedback.Changes)
		}
		putFeedback(t, e, owner.Key, atoi(t, id), map[string]any{"description": "note", "is_internal": true})

		for _, who := range []*user{ann, owner} {
			g = e.GraphQL(t, who.Key, `query($id: ID!) { feedback(id: $id) { `+gqlFeedback+` } }`, map[string]any{"id": id})
			var read struct{ Feedback gqlFeedbackItem }
			if json.Unmarshal(g.Data, &read); len(g.Errors) > 0 {
				t.Fatalf("read %s %+v", g.Data, g.Errors)
			}
			sameItem(t, getFeedback(t, e, who.Key, atoi(t, id)), read.Feedback)
			if rec := read.Feedback.Updates[0]; len(rec.Attachments) != 1 {
				t.Fatalf("update attachments %+v", rec)
			}
		}

		// Lists agree, page and total included.
		postFeedback(t, e, ann.Key, map[string]any{"description": "plain", "ticketed_object": map[string]any{"type": "layer", "id": lid}})
		for _, q := range []struct {
			rest string
			in   map[string]any
		}{
			{"?page_size=1", map[string]any{"pageSize": 1}},
			{"?type=ticket", map[string]any{"type": "TICKET"}},
			{fmt.Sprintf("?type=comment&ticketed_object.type=layer&ticketed_object.id=%d", lid), map[string]any{"type": "COMMENT", "ticketedObjectType": "layer", "ticketedObjectID": lid}},
		} {
			ids, resp := listFeedback(t, e, ann.Key, q.rest)
			g = e.GraphQL(t, ann.Key, `query($in: FeedbackSearchInput) { feedbackSearch(input: $in) { items { id } pageInfo { total pageSize } } }`, map[string]any{"in": q.in})
			var page struct {
				FeedbackSearch struct {
					Items    []struct{ ID string }
					PageInfo struct{ Total, PageSize int }
				}
			}
			json.Unmarshal(g.Data, &page)
			var gids []string
			for _, it := range page.FeedbackSearch.Items {
				gids = append(gids, it.ID)
			}
			if len(g.Errors) > 0 || strings.Trim(fmt.Sprint(ids), "[]") != strings.Join(gids, " ") ||
				!strings.HasSuffix(resp.Header.Get("X-Resource-Range"), fmt.Sprintf("/%d", page.FeedbackSearch.PageInfo.Total)) {
				t.Fatalf("%s: REST %v (%s) vs GraphQL %s %+v", q.rest, ids, resp.Header.Get("X-Resource-Range"), g.Data, g.Errors)
			}
		}

		// The same refusals.
		for _, c := range []struct {
			key, query string
			vars       map[string]any
			status     int
			rest       req
		}{
			{"", `mutation { createFeedback(input: {description: "x"}) { id } }`, nil, http.StatusUnauthorized,
				req{Method: "POST", Path: "/comments/", Body: map[string]any{"description": "x"}}},
			{ann.Key, `mutation { createFeedback(input: {description: " "}) { id } }`, nil, http.StatusBadRequest,
				req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: map[string]any{"description": " "}}},
			{ann.Key, `mutation($id: ID!) { updateFeedback(id: $id, input: {isInternal: true}) { id } }`, map[string]any{"id": id}, http.StatusForbidden,
				req{Method: "PUT", Path: "/comments/" + id + "/", Key: ann.Key, Body: map[string]any{"is_internal": true}}},
			{ann.Key, `mutation($id: ID!) { deleteFeedback(id: $id) }`, map[string]any{"id": 999999}, http.StatusNotFound,
				req{Method: "DELETE", Path: "/comments/999999/", Key: ann.Key}},
		} {
			g := e.GraphQL(t, c.key, c.query, c.vars)
			r := e.Do(t, c.rest)
			want := map[int]string{401: "UNAUTHENTICATED", 400: "BAD_REQUEST", 403: "FORBIDDEN", 404: "NOT_FOUND"}[c.status]
			if r.Status != c.status || len(g.Errors) != 1 || g.Errors[0].Code() != want {
				t.Fatalf("%s: REST %d %s vs GraphQL %+v", c.query, r.Status, r.Body, g.Errors)
			}
		}
	})
}

// Issue acceptance: "Markup injection attempts in description come back
// escaped in description_html", for items and update records, through
// REST and GraphQL.
func TestFeedbackMarkupInjection(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ann := e.NewUser(t, "Ann")
		payloads := []string{
			`<script>alert(1)</script>`,
			`<img src=x onerror=alert(1)>`,
			`[click](javascript:alert(1))`,
			`<a href="#" onclick="alert(1)">x</a>`,
			`![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)`,
		}
		f := postFeedback(t, e, ann.Key, map[string]any{"description": strings.Join(payloads, "\n\n")})
		u := putFeedback(t, e, ann.Key, f.ID, map[string]any{"description": strings.Join(payloads, " ")})
		g := e.GraphQL(t, ann.Key, `query($id: ID!) { feedback(id: $id) { descriptionHTML updates { descriptionHTML } } }`, map[string]any{"id": f.ID})
		var data struct {
			Feedback struct {
				DescriptionHTML string
				Updates         []struct{ DescriptionHTML string }
			}
		}
		if json.Unmarshal(g.Data, &data); len(g.Errors) > 0 || len(data.Feedback.Updates) != 1 {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}
		if data.Feedback.DescriptionHTML != f.DescriptionHTML || data.Feedback.Updates[0].DescriptionHTML != u.DescriptionHTML {
			t.Fatalf("GraphQL %s vs REST %s / %s", g.Data, f.DescriptionHTML, u.DescriptionHTML)
		}
		// Every tag in the output is harmless: no script-like element, no
		// event handler, no javascript: or data: URL.
		for _, html := range []string{f.DescriptionHTML, u.DescriptionHTML} {
			for _, tag := range htmlTag.FindAllString(html, -1) {
				if unsafeTag.MatchString(tag) {
					t.Fatalf("executable markup %s in %s", tag, html)
				}
			}
		}
		if !strings.Contains(f.DescriptionHTML, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(f.DescriptionHTML, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Fatalf("payloads should come back escaped: %s", f.DescriptionHTML)
		}
	})
}

var (
	htmlTag   = regexp.MustCompile(`<[^>]*>`)
	unsafeTag = regexp.MustCompile(`(?i)^<\s*/?\s*(script|iframe|object|embed|svg|style)|\son[a-z]+\s*=|(javascript|vbscript|data):`)
)
