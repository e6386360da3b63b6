package rest_test

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 12, point 11: "every url_html in responses is a 404. ... url_html
// links resolve to a readable HTML view of the object (server-rendered,
// no build step), so links shared by users are not dead." The page reads
// the object under the same rule as the REST detail view: an object the
// caller may not read is a 404 page, and private data is never shown to
// anonymous callers.

// htmlKinds are the matrix's fixture kinds whose REST detail carries a
// page link: the REST detail path, and the link's and the title's fields.
var htmlKinds = []struct{ kind, detail, link, title string }{
	{"layers", "/layers/{id}/", "url_html", "name"},
	{"tables", "/tables/{id}/", "url_html", "name"},
	{"sets", "/sets/{id}/", "url_html", "title"},
	{"documents", "/documents/{id}/", "url_html", "name"},
	{"items", "/items/{id}/", "url_html", "title"},
	{"sources", "/sources/{id}/", "url_html", "title"},
	{"groups", "/groups/{id}/", "url_html", "name"},
	{"feedback", "/comments/{id}/", "html_url", "description"},
}

func TestHTMLViews(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixtures(t, servertest.New(t, s))
		for _, k := range htmlKinds {
			for _, o := range f.objects[k.kind] {
				t.Run(o.name, func(t *testing.T) {
					page, title := f.pageOf(t, k.detail, k.link, k.title, o)
					for _, r := range roles {
						may := o.levels[r] >= lvView
						if k.kind == "groups" {
							may = r != anonymous // groups are shown to signed-in users
						}
						resp := f.e.Do(t, req{Method: http.MethodGet, Path: page, Key: f.key(r)})
						if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
							t.Fatalf("%s as %s: Content-Type %q", page, r, resp.Header.Get("Content-Type"))
						}
						body := string(resp.Body)
						switch {
						case may && (resp.Status != http.StatusOK || !strings.Contains(body, html.EscapeString(title))):
							t.Fatalf("%s as %s: %d, want 200 showing %q: %s", page, r, resp.Status, title, body)
						case !may && (resp.Status != http.StatusNotFound || strings.Contains(body, html.EscapeString(title))):
							t.Fatalf("%s as %s: %d, want a 404 that does not show %q: %s", page, r, resp.Status, title, body)
						}
						if may && !strings.Contains(body, `href="/services/api/v1.x/`) || may && !strings.Contains(body, `href="/graphiql?query=`) {
							t.Fatalf("%s: no links to the REST URL and the explorer: %s", page, body)
						}
					}
				})
			}
		}
		// A metadata upload's url_html is the version's metadata page, for
		// those who may read the version (the draft: its editors).
		for _, kind := range []string{"layers", "tables", "sets", "documents", "items"} {
			o := f.objects[kind][0]
			up := f.e.Do(t, req{Method: http.MethodPost, Path: f.fill(t, "/"+kind+"/{id}/versions/{draft}/metadata/", o),
				Key: f.key(owner), Body: f.iso, Header: map[string]string{"Content-Type": "text/xml"}})
			expectStatus(t, up, http.StatusCreated)
			var js map[string]string
			up.JSON(t, &js)
			for _, r := range roles {
				resp := f.e.Do(t, req{Method: http.MethodGet, Path: js["url_html"], Key: f.key(r)})
				want := http.StatusNotFound
				if o.levels[r] >= lvEdit {
					want = http.StatusOK
				}
				expectHTML(t, resp, want)
				if want == http.StatusOK && !strings.Contains(string(resp.Body), "ISO") {
					t.Fatalf("%s: %s", js["url_html"], resp.Body)
				}
			}
		}
		// Without a trailing slash the page answers too; unknown ids are 404.
		lp, _ := f.pageOf(t, "/layers/{id}/", "url_html", "name", f.objects["layers"][1])
		expectHTML(t, f.e.Do(t, req{Method: http.MethodGet, Path: strings.TrimSuffix(lp, "/")}), http.StatusOK)
		expectHTML(t, f.e.Do(t, req{Method: http.MethodGet, Path: f.e.HTTP.URL + "/layers/999999/"}), http.StatusNotFound)
		expectHTML(t, f.e.Do(t, req{Method: http.MethodGet, Path: f.e.HTTP.URL + "/layers/99999999999999999999999/"}), http.StatusNotFound)
		// A table's id under /layers/ is not a layer.
		expectHTML(t, f.e.Do(t, req{Method: http.MethodGet, Path: f.e.HTTP.URL + f.fill(t, "/layers/{id}/", f.objects["tables"][1])}), http.StatusNotFound)
	})
}

// pageOf reads an object's REST detail as its most trusted reader and
// returns its page's path and its title.
func (f *fixtures) pageOf(t *testing.T, detail, link, title string, o *object) (string, string) {
	t.Helper()
	var js map[string]any
	resp := f.e.Do(t, req{Method: http.MethodGet, Path: f.fill(t, detail, o), Key: f.key(siteAdmin)})
	expectStatus(t, resp, http.StatusOK)
	resp.JSON(t, &js)
	u, _ := js[link].(string)
	if !strings.HasPrefix(u, f.e.HTTP.URL+"/") {
		t.Fatalf("%s: %s = %q, want a URL of this site", detail, link, u)
	}
	name, _ := js[title].(string)
	if name == "" {
		t.Fatalf("%s: no %s in %s", detail, title, resp.Body)
	}
	return u, name
}

func expectHTML(t *testing.T, resp *servertest.Response, status int) {
	t.Helper()
	if resp.Status != status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%d %q, want %d text/html: %s", resp.Status, resp.Header.Get("Content-Type"), status, resp.Body)
	}
	if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("page headers %v", resp.Header)
	}
}

// Browsers follow url_html with the session cookie, not a token; and a
// page shows hostile text as text.
func TestHTMLViewSessionAndEscaping(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "PageAdmin", servertest.SiteAdmin)
		hostile := `<script>alert("x")</script> & <b>bold</b>`
		g := doJSON[map[string]any](t, e, req{Method: http.MethodPost, Path: "/group/", Key: admin.Key,
			Body: map[string]any{"name": hostile, "country": "NZ"}}, http.StatusCreated)
		page := g["url_html"].(string)
		// Groups are for signed-in users: anonymous gets the 404 page.
		expectHTML(t, e.Do(t, req{Method: http.MethodGet, Path: page}), http.StatusNotFound)

		u := e.NewUser(t, "PageReader")
		login := e.Do(t, req{Method: http.MethodPost, Path: "/session/", Body: map[string]any{"email": u.Email, "password": servertest.Password}})
		expectStatus(t, login, http.StatusOK)
		var cookie string
		for _, c := range (&http.Response{Header: login.Header}).Cookies() {
			if c.Name == auth.SessionCookie {
				cookie = c.Name + "=" + c.Value
			}
		}
		if cookie == "" {
			t.Fatalf("no session cookie: %v", login.Header)
		}
		resp := e.Do(t, req{Method: http.MethodGet, Path: page, Header: map[string]string{"Cookie": cookie}})
		expectHTML(t, resp, http.StatusOK)
		body := string(resp.Body)
		if strings.Contains(body, "<script>") || strings.Contains(body, "<b>bold") {
			t.Fatalf("hostile name not escaped: %s", body)
		}
		if !strings.Contains(body, html.EscapeString(hostile)) && !strings.Contains(body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;") {
			t.Fatalf("hostile name not shown as text: %s", body)
		}
	})
}
