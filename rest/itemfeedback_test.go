package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Feedback about a catalog item: ticketed_object of type "catalog item"
// names the item by its public id (c12) and links to its URL; the item's
// consumer action feedback lists and adds comments and tickets about it.
func TestCatalogItemFeedback(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		ann := e.NewUser(t, "Ann")
		stranger := e.NewUser(t, "Stranger")
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		it = publishItem(t, e, pub, it.ThisVersion)
		hidden := createItem(t, e, pub, map[string]any{"title": "Hidden", "link_url": "https://example.org/h"})
		on := func(id any) map[string]any { return map[string]any{"type": "catalog item", "id": id} }

		// POST /comments/ about the item, by its public id or its number.
		c := postFeedback(t, e, ann.Key, map[string]any{"description": "The link is broken.", "ticketed_object": on(it.ID)})
		if c.TicketedObject == nil || c.TicketedObject.Type != "catalog item" || c.TicketedObject.ID != it.ID ||
			!strings.HasSuffix(c.TicketedObject.HTMLURL, "/items/"+it.ID+"/") {
			t.Fatalf("ticketed_object %+v", c.TicketedObject)
		}
		byNumber := postFeedback(t, e, ann.Key, map[string]any{"description": "Same", "ticketed_object": on(strings.TrimPrefix(it.ID, "c"))})
		if byNumber.TicketedObject.ID != it.ID {
			t.Fatalf("by number %+v", byNumber.TicketedObject)
		}
		// Items one cannot see, and ids that name no item: 400, nothing
		// written.
		before := e.Store.Client.Feedback.Query().CountX(t.Context())
		expectField(t, e.Do(t, req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: map[string]any{"description": "x", "ticketed_object": on(hidden.ID)}}),
			"ticketed_object", "that you can see")
		expectField(t, e.Do(t, req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: map[string]any{"description": "x", "ticketed_object": on("x12")}}),
			"ticketed_object.id", "x12")
		expectField(t, e.Do(t, req{Method: "POST", Path: "/comments/", Key: ann.Key, Body: map[string]any{"description": "x", "ticketed_object": on("c0")}}),
			"ticketed_object.id", "c0")
		if e.Store.Client.Feedback.Query().CountX(t.Context()) != before {
			t.Fatal("a refused create wrote feedback")
		}
		// The list filter takes the public id too.
		ids, _ := listFeedback(t, e, ann.Key, "?ticketed_object.type=catalog%20item&ticketed_object.id="+it.ID)
		if !slices.Equal(ids, []int{byNumber.ID, c.ID}) {
			t.Fatalf("filtered %v", ids)
		}

		// The item's feedback: a ticket by Ann, an internal update by the
		// item's administrator, who administers feedback about it.
		path := it.URL + "feedback/"
		r := e.Do(t, req{Method: "POST", Path: path, Key: ann.Key, Body: map[string]any{"description": "Still broken", "status": "open"}})
		expectStatus(t, r, http.StatusCreated)
		var tk feedbackItem
		r.JSON(t, &tk)
		if tk.Status != "open" || tk.TicketedObject == nil || tk.TicketedObject.ID != it.ID || r.Header.Get("Location") != tk.URL ||
			tk.Updates == nil || r.Header.Get("Accepted-OAuth-Scopes") != "catalog" {
			t.Fatalf("created %s", r.Body)
		}
		internal := putFeedback(t, e, pub.Key, tk.ID, map[string]any{"description": "Owner only", "is_internal": true})
		if !internal.IsInternal || len(*getFeedback(t, e, ann.Key, tk.ID).Updates) != 0 || len(*getFeedback(t, e, pub.Key, tk.ID).Updates) != 1 {
			t.Fatal("internal updates are the item administrator's")
		}
		list := func(key, query string) []int {
			t.Helper()
			r := e.Do(t, req{Path: path + query, Key: key})
			expectStatus(t, r, http.StatusOK)
			var items []feedbackItem
			r.JSON(t, &items)
			out := []int{}
			for _, f := range items {
				out = append(out, f.ID)
			}
			return out
		}
		for _, w := range []struct {
			key, query string
			want       []int
		}{
			{"", "", []int{byNumber.ID, c.ID}},
			{ann.Key, "", []int{tk.ID, byNumber.ID, c.ID}},
			{pub.Key, "?type=ticket", []int{tk.ID}},
			{ann.Key, "?type=comment&page_size=1&page=2", []int{c.ID}},
		} {
			if got := list(w.key, w.query); !slices.Equal(got, w.want) {
				t.Errorf("list %q: %v, want %v", w.query, got, w.want)
			}
		}
		expectStatus(t, e.Do(t, req{Path: path + "?type=all", Key: ann.Key}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Path: path + "?page_size=100001", Key: ann.Key}), http.StatusBadRequest)

		// Who may: the catalog scope; invisible items are 404.
		authMatrix(t, e, req{Method: "POST", Path: path, Body: map[string]any{"description": "x"}}, "catalog", nil)
		expectScope(t, e, req{Path: path}, ann, "catalog")
		expectStatus(t, e.Do(t, req{Method: "POST", Path: hidden.URL + "feedback/", Key: stranger.Key, Body: map[string]any{"description": "x"}}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: hidden.URL + "feedback/", Key: stranger.Key}), http.StatusNotFound)
		// Bad input: 400 with a message, nothing written.
		before = e.Store.Client.Feedback.Query().CountX(t.Context())
		for _, body := range []any{
			map[string]any{"description": " "},
			map[string]any{"description": "x", "status": "closed"},
			map[string]any{"description": "x", "ticketed_object": map[string]any{"type": "layer", "id": 1}},
			map[string]any{"description": "x", "ticketed_object": on(hidden.ID)},
			"not an object",
		} {
			r := e.Do(t, req{Method: "POST", Path: path, Key: ann.Key, Body: body})
			if r.Status != http.StatusBadRequest || len(r.Body) < 10 {
				t.Errorf("%v: %d %s", body, r.Status, r.Body)
			}
		}
		if e.Store.Client.Feedback.Query().CountX(t.Context()) != before {
			t.Fatal("a refused create wrote feedback")
		}

		// GraphQL: the same list, and the same create.
		g := e.GraphQL(t, ann.Key, `query($cid: String!) { catalogItemFeedback(itemID: $cid) { items { id ticketedObject { type id } } pageInfo { total } } }`,
			map[string]any{"cid": it.ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), fmt.Sprintf(`{"id":"%d","ticketedObject":{"type":"catalog item","id":"%s"}}`, tk.ID, strings.TrimPrefix(it.ID, "c"))) ||
			!strings.Contains(string(g.Data), `"total":3`) {
			t.Fatalf("GraphQL list %s %v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, ann.Key, `mutation($cid: String!) { createCatalogItemFeedback(itemID: $cid, input: {description: "Via GraphQL"}) { ticketedObject { type } } }`,
			map[string]any{"cid": it.ID})
		if len(g.Errors) > 0 || string(g.Data) != `{"createCatalogItemFeedback":{"ticketedObject":{"type":"catalog item"}}}` {
			t.Fatalf("GraphQL create %s %v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, stranger.Key, `mutation($cid: String!) { createCatalogItemFeedback(itemID: $cid, input: {description: "x"}) { id } }`,
			map[string]any{"cid": hidden.ID})
		if gqlStatus(g.Errors) != http.StatusNotFound {
			t.Fatalf("GraphQL hidden %v", g.Errors)
		}
	})
}
