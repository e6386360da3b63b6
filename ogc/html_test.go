package ogc_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// /conf/html: every resource has an HTML view, by f=html or Accept, and
// every value in it is escaped.
func testHTML(t *testing.T, f *fixture) {
	key := f.reader.Key
	items := "/collections/" + layerID(f.points) + "/items"
	for _, p := range []string{"/", "/conformance", "/api", "/collections", "/collections/" + layerID(f.points),
		items, items + "/121"} {
		t.Run("/conf/html/content"+p, func(t *testing.T) {
			for _, r := range []response{
				f.get(t, key, p+"?f=html"),
				f.get(t, key, p, "Accept", "text/html,application/xhtml+xml,*/*;q=0.8"),
			} {
				if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
					t.Fatalf("%d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
				}
				body := string(r.body)
				if !strings.HasPrefix(body, "<!DOCTYPE html>") {
					t.Errorf("not an HTML page: %.200s", body)
				}
				if strings.Contains(body, "<script") || strings.Contains(body, "<b>") {
					t.Errorf("unescaped markup in %s: %s", p, body)
				}
				if strings.HasPrefix(p, items) && !strings.Contains(body, "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;") {
					t.Errorf("the hostile value is not shown escaped: %s", body)
				}
			}
		})
	}
	t.Run("json stays the default", func(t *testing.T) {
		r := f.get(t, key, items, "Accept", "application/geo+json, text/html;q=0.5")
		if !strings.HasPrefix(r.header.Get("Content-Type"), "application/geo+json") {
			t.Errorf("Content-Type %s", r.header.Get("Content-Type"))
		}
		var ex exception
		f.get(t, key, items+"?f=xml").json(t, http.StatusBadRequest, "application/json", &ex)
	})
	t.Run("paging in HTML", func(t *testing.T) {
		r := f.get(t, key, items+"?f=html")
		if !strings.Contains(string(r.body), "cursor=") || !strings.Contains(string(r.body), "Next page as HTML") {
			t.Errorf("no HTML next link: %s", r.body)
		}
	})
	t.Run("errors as HTML", func(t *testing.T) {
		r := f.get(t, key, fmt.Sprintf("/collections/%s/items/999?f=html", layerID(f.points)))
		if r.status != http.StatusNotFound || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			t.Errorf("%d %s", r.status, r.header.Get("Content-Type"))
		}
	})
}
