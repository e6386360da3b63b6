package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

type itemRecord struct {
	ID               string   `json:"id"`
	URL              string   `json:"url"`
	Type             string   `json:"type"`
	Title            string   `json:"title"`
	Description      string   `json:"description"`
	DescriptionHTML  string   `json:"description_html"`
	LinkURL          string   `json:"link_url"`
	Tags             []string `json:"tags"`
	Categories       []string `json:"categories"`
	User             struct{ ID int }
	PublishedVersion *string `json:"published_version"`
	LatestVersion    string  `json:"latest_version"`
	ThisVersion      string  `json:"this_version"`
	Version          struct {
		ID    int    `json:"id"`
		State string `json:"state"`
	} `json:"version"`
	Metadata    map[string]string `json:"metadata"`
	Attachments string            `json:"attachments"`
	Geotags     string            `json:"geotags"`
	IsStarred   bool              `json:"is_starred"`
	IsPinned    bool              `json:"is_pinned"`
}

// createItem creates a catalog item as u and returns it.
func createItem(t *testing.T, e *env, u *user, body map[string]any) itemRecord {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: "/items/", Key: u.Key, Body: body})
	expectStatus(t, r, http.StatusCreated)
	var it itemRecord
	r.JSON(t, &it)
	if r.Header.Get("Location") != it.URL || !strings.HasPrefix(it.URL, "http") {
		t.Fatalf("Location %q for %s", r.Header.Get("Location"), r.Body)
	}
	return it
}

// publishItem publishes an item's version and returns the item as of it.
func publishItem(t *testing.T, e *env, u *user, versionURL string) itemRecord {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: versionURL + "publish/", Key: u.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	var it itemRecord
	r.JSON(t, &it)
	if r.Header.Get("Location") != versionURL || it.ThisVersion != versionURL || it.Version.State != "published" {
		t.Fatalf("published %s (Location %q)", r.Body, r.Header.Get("Location"))
	}
	return it
}

// Spec, Catalog item: "A catalog item has a public ID prefixed with c. It
// is versioned (published and draft)." and "Draft editing, publishing,
// deletion and permission management are administrative."
func TestCatalogItems(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")

		// Bad input: a clear 400 naming the field, and nothing written.
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"NoTitle":      {map[string]any{"link_url": "https://example.org/"}, "title"},
			"BlankTitle":   {map[string]any{"title": "  ", "link_url": "https://example.org/"}, "title"},
			"NoLink":       {map[string]any{"title": "x"}, "link_url"},
			"FTP":          {map[string]any{"title": "x", "link_url": "ftp://example.org/data.zip"}, "link_url"},
			"JavaScript":   {map[string]any{"title": "x", "link_url": "javascript:alert(1)"}, "link_url"},
			"Relative":     {map[string]any{"title": "x", "link_url": "/data/1"}, "link_url"},
			"Credentials":  {map[string]any{"title": "x", "link_url": "https://user:pw@example.org/"}, "link_url"},
			"UnknownGroup": {map[string]any{"title": "x", "link_url": "https://example.org/", "group": 9999}, "group"},
		} {
			t.Run(name, func(t *testing.T) {
				r := e.Do(t, req{Method: "POST", Path: "/items/", Key: pub.Key, Body: c.body})
				expectStatus(t, r, http.StatusBadRequest)
				var fields map[string][]string
				r.JSON(t, &fields)
				if len(fields[c.field]) == 0 {
					t.Fatalf("400 body %s does not name %s", r.Body, c.field)
				}
				if n := e.Store.Client.CatalogItem.Query().CountX(t.Context()); n != 0 {
					t.Fatal("a refused create wrote an item")
				}
			})
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/items/", Key: pub.Key, Body: "{"}), http.StatusBadRequest)
		authMatrix(t, e, req{Method: "POST", Path: "/items/", Body: map[string]any{"title": "x"}}, "items:write", nil)
		catalogOnly := e.Token(t, pub.User, "catalog")
		expectDetail(t, e.Do(t, req{Method: "POST", Path: "/items/", Key: catalogOnly, Body: map[string]any{"title": "x"}}), http.StatusUnauthorized, "items:write")

		// Create: 201, a draft, Location absolute; markup in the
		// description comes back escaped.
		it := createItem(t, e, pub, map[string]any{
			"title": "NIWA Climate Database", "link_url": "https://cliflo.niwa.co.nz/",
			"description": "Daily rainfall.\n\n<script>alert('x')</script>", "tags": []string{"climate", " rainfall ", "climate", ""},
			"categories": []string{"Environment"}})
		if !regexp.MustCompile(`^c[0-9]+$`).MatchString(it.ID) || !strings.HasSuffix(it.URL, "/items/"+it.ID+"/") || it.Type != "catalogitem" ||
			it.PublishedVersion != nil || it.Version.State != "draft" || it.ThisVersion != it.LatestVersion || it.User.ID != pub.ID ||
			strings.Join(it.Tags, ",") != "climate,rainfall" || it.Categories[0] != "Environment" || it.Metadata != nil {
			t.Fatalf("created %+v", it)
		}
		if it.DescriptionHTML != "<p>Daily rainfall.</p>\n<p>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</p>" {
			t.Fatalf("description_html %q", it.DescriptionHTML)
		}

		// Ids: unprefixed, unknown and malformed ones are 404.
		numeric := strings.TrimPrefix(it.ID, "c")
		for _, p := range []string{"/items/" + numeric + "/", "/items/c999999/", "/items/c0/", "/items/c0" + numeric + "/", "/items/x" + numeric + "/"} {
			expectStatus(t, e.Do(t, req{Path: p, Key: pub.Key}), http.StatusNotFound)
		}

		// Unpublished: only its administrators see it.
		expectStatus(t, e.Do(t, req{Path: it.URL, Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: it.URL}), http.StatusNotFound)
		r := e.Do(t, req{Path: "/items/", Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("X-Resource-Range") != "0-0/0" || string(r.Body) != "[]\n" || r.Header.Get("Accepted-OAuth-Scopes") != "catalog" {
			t.Fatalf("reader list %v %s", r.Header, r.Body)
		}
		r = e.Do(t, req{Path: "/items/drafts/", Key: pub.Key})
		if r.Header.Get("X-Resource-Range") != "0-1/1" || !strings.Contains(string(r.Body), `"id":"`+it.ID+`"`) {
			t.Fatalf("drafts %v %s", r.Header, r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: "/items/?page_size=100001", Key: reader.Key}), http.StatusBadRequest)
		r = e.Do(t, req{Path: "/items/?page_size=1&page=2", Key: pub.Key, Header: map[string]string{"Expand": "list"}})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("X-Resource-Range") != "1-1/1" || string(r.Body) != "[]\n" {
			t.Fatalf("page 2 %v %s", r.Header, r.Body)
		}
		wrong := e.Token(t, reader.User, "query")
		expectDetail(t, e.Do(t, req{Path: "/items/", Key: wrong}), http.StatusUnauthorized, "catalog")

		// Someone else cannot administer it: the item stays hidden (404).
		draftURL := it.ThisVersion
		expectStatus(t, e.Do(t, req{Method: "POST", Path: draftURL + "publish/", Key: reader.Key, Body: map[string]any{}}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: it.URL, Key: reader.Key}), http.StatusNotFound)

		// Publish at once: 201, Location the version; twice is 409.
		it = publishItem(t, e, pub, draftURL)
		if it.PublishedVersion == nil || *it.PublishedVersion != draftURL {
			t.Fatalf("published %+v", it)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: draftURL + "publish/", Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)
		r = e.Do(t, req{Path: it.URL})
		expectStatus(t, r, http.StatusOK)
		r = e.Do(t, req{Path: "/items/", Key: reader.Key})
		if r.Header.Get("X-Resource-Range") != "0-1/1" {
			t.Fatalf("reader list after publish %v %s", r.Header, r.Body)
		}
		if r := e.Do(t, req{Path: "/items/drafts/", Key: pub.Key}); r.Header.Get("X-Resource-Range") != "0-0/0" {
			t.Fatalf("drafts after publish %s", r.Header.Get("X-Resource-Range"))
		}

		// The published version is immutable.
		pubURL := draftURL
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: pubURL, Key: pub.Key, Body: map[string]any{"title": "Renamed"}}), http.StatusMethodNotAllowed)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: pubURL, Key: pub.Key}), http.StatusMethodNotAllowed)

		// A draft: 201 + Location; a second is 409; edit it; readers still
		// see the published version.
		r = e.Do(t, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var draft itemRecord
		r.JSON(t, &draft)
		if draft.Version.State != "draft" || r.Header.Get("Location") != draft.ThisVersion || draft.ThisVersion == pubURL || draft.Title != "NIWA Climate Database" {
			t.Fatalf("draft %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: draft.ThisVersion, Key: pub.Key, Body: map[string]any{"link_url": "mailto:x@example.org"}}), http.StatusBadRequest)
		// The reader sees the published item but may not edit it: 403.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: draft.ThisVersion, Key: reader.Key, Body: map[string]any{"title": "Mine"}}), http.StatusForbidden)
		r = e.Do(t, req{Method: "PUT", Path: draft.ThisVersion, Key: pub.Key, Body: map[string]any{"title": "CliFlo", "tags": []string{"weather"}}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &draft)
		if draft.Title != "CliFlo" || strings.Join(draft.Tags, ",") != "weather" || draft.LinkURL != "https://cliflo.niwa.co.nz/" {
			t.Fatalf("edited %s", r.Body)
		}
		r = e.Do(t, req{Path: it.URL, Key: reader.Key})
		var seen itemRecord
		r.JSON(t, &seen)
		if seen.Title != "NIWA Climate Database" || seen.ThisVersion != pubURL || seen.LatestVersion != pubURL {
			t.Fatalf("reader sees %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: it.URL + "versions/draft/", Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: draft.ThisVersion, Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: it.URL + "versions/draft/", Key: pub.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: it.URL + "versions/published/", Key: reader.Key}), http.StatusOK)
		r = e.Do(t, req{Path: it.URL + "versions/", Key: reader.Key})
		if r.Header.Get("X-Resource-Range") != "0-1/1" {
			t.Fatalf("reader versions %s", r.Body)
		}
		r = e.Do(t, req{Path: it.URL + "versions/", Key: pub.Key})
		if r.Header.Get("X-Resource-Range") != "0-2/2" {
			t.Fatalf("publisher versions %s", r.Body)
		}

		// GraphQL tells the same story.
		g := e.GraphQL(t, pub.Key, `query($id: String!) { catalogItem(id: $id) { publicID title isStarred
			publishedVersion { title linkURL tags state descriptionHTML } draftVersion { id title tags } } }`, map[string]any{"id": it.ID})
		var gd struct {
			CatalogItem struct {
				PublicID, Title  string
				PublishedVersion struct {
					Title, LinkURL, State, DescriptionHTML string
					Tags                                   []string
				}
				DraftVersion struct {
					ID, Title string
					Tags      []string
				}
			}
		}
		json.Unmarshal(g.Data, &gd)
		c := gd.CatalogItem
		if len(g.Errors) > 0 || c.PublicID != it.ID || c.Title != it.Title || c.PublishedVersion.LinkURL != it.LinkURL ||
			c.PublishedVersion.DescriptionHTML != it.DescriptionHTML || c.DraftVersion.Title != draft.Title ||
			c.DraftVersion.ID != fmt.Sprint(draft.Version.ID) || c.PublishedVersion.State != "published" {
			t.Fatalf("GraphQL %s %+v vs REST %+v", g.Data, g.Errors, it)
		}
		g = e.GraphQL(t, reader.Key, `query($id: String!) { catalogItem(id: $id) { draftVersion { id } latestVersion { title } } }`, map[string]any{"id": it.ID})
		if len(g.Errors) > 0 || string(g.Data) != `{"catalogItem":{"draftVersion":null,"latestVersion":{"title":"NIWA Climate Database"}}}` {
			t.Fatalf("GraphQL reader %s %+v", g.Data, g.Errors)
		}
		gcode := func(key, q string, vars map[string]any) string {
			g := e.GraphQL(t, key, q, vars)
			if len(g.Errors) == 0 {
				return ""
			}
			return g.Errors[0].Code()
		}
		for _, c := range []struct{ key, q, want string }{
			{pub.Key, `mutation($id: String!) { createCatalogItemDraft(itemID: $id) { id } }`, "CONFLICT"},
			{pub.Key, `mutation($id: String!, $v: ID!) { updateCatalogItemVersion(itemID: $id, versionID: $v, input: {title: "x"}) { id } }`, "METHOD_NOT_ALLOWED"},
			{reader.Key, `mutation($id: String!, $d: ID!) { publishCatalogItemVersion(itemID: $id, versionID: $d) { id } }`, "FORBIDDEN"},
			{"", `mutation($id: String!) { deleteCatalogItem(id: $id) }`, "UNAUTHENTICATED"},
			{pub.Key, `query { catalogItem(id: "12") { id } }`, "NOT_FOUND"},
			{pub.Key, `mutation { createCatalogItem(input: {title: "x", linkURL: "gopher://x"}) { id } }`, "BAD_REQUEST"},
		} {
			if got := gcode(c.key, c.q, map[string]any{"id": it.ID, "v": it.Version.ID, "d": draft.Version.ID}); got != c.want {
				t.Errorf("%s: %q, want %s", c.q, got, c.want)
			}
		}
		g = e.GraphQL(t, pub.Key, `{ catalogItemSearch(drafts: true) { items { publicID } pageInfo { total } } }`, nil)
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"publicID":"`+it.ID+`"`) || !strings.Contains(string(g.Data), `"total":1`) {
			t.Fatalf("GraphQL drafts %s %+v", g.Data, g.Errors)
		}

		// Discard the draft: 204, then 409.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draft.ThisVersion, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draft.ThisVersion, Key: pub.Key}), http.StatusConflict)
		expectStatus(t, e.Do(t, req{Path: it.URL + "versions/draft/", Key: pub.Key}), http.StatusNotFound)

		// Delete the item.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: it.URL, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: it.URL, Key: pub.Key}), http.StatusNotFound)
		if n := e.Store.Client.CatalogItemVersion.Query().CountX(t.Context()); n != 0 {
			t.Fatalf("%d versions left after deleting the item", n)
		}
	})
}
