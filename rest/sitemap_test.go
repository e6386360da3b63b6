package rest_test

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
)

// Issue 27, point 3: "/sitemap.xml lists the public pages; /robots.txt
// exists", and "a private or unpublished dataset is absent from every
// door for outsiders (... feeds, sitemap)".

type sitemapURLs struct {
	XMLName xml.Name `xml:"urlset"`
	URLs    []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"url"`
}

type sitemapIndexXML struct {
	XMLName  xml.Name `xml:"sitemapindex"`
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

// crawl GETs a site path (not an API one) as key ("" anonymous).
func crawl(t *testing.T, e *env, path, key string, header map[string]string) *servertest.Response {
	t.Helper()
	return e.Do(t, req{Path: e.HTTP.URL + path, Key: key, Header: header})
}

// expectXML checks a sitemap answer's status and headers.
func expectXML(t *testing.T, r *servertest.Response) {
	t.Helper()
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/xml") ||
		r.Header.Get("Cache-Control") != "public, max-age=300" || r.Header.Get("ETag") == "" {
		t.Fatalf("%d %v: %s", r.Status, r.Header, r.Body)
	}
}

// locs reads a sitemap file's URLs; every lastmod is a W3C datetime.
func locs(t *testing.T, r *servertest.Response) []string {
	t.Helper()
	expectXML(t, r)
	var set sitemapURLs
	if err := xml.Unmarshal(r.Body, &set); err != nil {
		t.Fatalf("not a urlset: %v\n%s", err, r.Body)
	}
	var out []string
	for _, u := range set.URLs {
		if u.LastMod != "" {
			if _, err := time.Parse(time.RFC3339, u.LastMod); err != nil {
				t.Fatalf("lastmod %q: %v", u.LastMod, err)
			}
		} else if !strings.HasSuffix(u.Loc, "/") || strings.Count(u.Loc, "/") != 3 {
			t.Fatalf("%s has no lastmod", u.Loc)
		}
		out = append(out, u.Loc)
	}
	return out
}

// publicPages are the pages an anonymous visitor may see under origin:
// the front page and the url_html of every dataset /data/ lists to them.
func publicPages(t *testing.T, e *env, origin string) []string {
	t.Helper()
	r := e.Do(t, req{Path: "/data/?page_size=100"})
	expectStatus(t, r, http.StatusOK)
	var es []struct {
		URLHTML string `json:"url_html"`
	}
	r.JSON(t, &es)
	out := []string{origin + "/"}
	for _, en := range es {
		u, err := url.Parse(en.URLHTML)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, origin+u.Path)
	}
	slices.Sort(out)
	return out
}

func TestSitemapListsPublicPagesOnly(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		want := publicPages(t, e, e.HTTP.URL)
		if len(want) != 1+len(published) {
			t.Fatalf("anonymous catalogue %v, want the front page and %v", want, published)
		}
		r := crawl(t, e, "/sitemap.xml", "", nil)
		got := locs(t, r)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("sitemap %v, want %v", got, want)
		}
		body := string(r.Body)
		for _, name := range []string{"Secret parcels", "Draft rivers"} {
			if u := fmt.Sprintf("%s/layers/%d/", e.HTTP.URL, f.layers[name]); strings.Contains(body, u) {
				t.Fatalf("%s (%s) is in the sitemap:\n%s", name, u, body)
			}
		}
		// Whoever asks, the sitemap is the anonymous one.
		if owner := crawl(t, e, "/sitemap.xml", f.owner.Key, nil); owner.Status != http.StatusOK || string(owner.Body) != body {
			t.Fatalf("owner's sitemap differs: %d\n%s", owner.Status, owner.Body)
		}
		// Revalidation: the same ETag is a 304 with no body.
		nm := crawl(t, e, "/sitemap.xml", "", map[string]string{"If-None-Match": r.Header.Get("ETag")})
		if nm.Status != http.StatusNotModified || len(nm.Body) != 0 {
			t.Fatalf("If-None-Match: %d %s", nm.Status, nm.Body)
		}
		if other := crawl(t, e, "/sitemap.xml", "", map[string]string{"If-None-Match": `"other"`}); other.Status != http.StatusOK {
			t.Fatalf("another ETag: %d", other.Status)
		}
		// One file: /sitemap-1.xml is it, and no other number names a file.
		if one := crawl(t, e, "/sitemap-1.xml", "", nil); string(one.Body) != body {
			t.Fatalf("sitemap-1.xml: %d %s", one.Status, one.Body)
		}
		for _, p := range []string{"/sitemap-2.xml", "/sitemap-0.xml", "/sitemap-99999999999999999999.xml", "/sitemap-x.xml"} {
			if r := crawl(t, e, p, "", nil); r.Status != http.StatusNotFound {
				t.Fatalf("%s: %d %s", p, r.Status, r.Body)
			}
		}
	})
}

func TestRobotsTxt(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := crawl(t, e, "/robots.txt", "", nil)
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") ||
			r.Header.Get("Cache-Control") != "public, max-age=300" {
			t.Fatalf("robots.txt: %d %v %s", r.Status, r.Header, r.Body)
		}
		body := string(r.Body)
		for _, line := range []string{"User-agent: *", "Allow: /", "Disallow: /services/", "Disallow: /graphql",
			"Disallow: /graphiql", "Disallow: /mappreview/", "Disallow: /metrics", "Disallow: /healthz", "Disallow: /readyz",
			"Disallow: /sources/", "Disallow: /comments/", "Disallow: /*/versions/", "Sitemap: " + e.HTTP.URL + "/sitemap.xml"} {
			if !slices.Contains(strings.Split(body, "\n"), line) {
				t.Fatalf("robots.txt has no line %q:\n%s", line, body)
			}
		}
		if nm := crawl(t, e, "/robots.txt", "", map[string]string{"If-None-Match": r.Header.Get("ETag")}); nm.Status != http.StatusNotModified {
			t.Fatalf("If-None-Match: %d", nm.Status)
		}
	})
}

// With more pages than a file holds, /sitemap.xml is an index of files
// that list every page exactly once.
func TestSitemapIndexAndFiles(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.SitemapURLs = 3 }, func(t *testing.T, e *env) {
		newCatalogFixture(t, e, nil)
		base := e.HTTP.URL
		want := publicPages(t, e, base)
		r := crawl(t, e, "/sitemap.xml", "", nil)
		expectXML(t, r)
		var idx sitemapIndexXML
		if err := xml.Unmarshal(r.Body, &idx); err != nil {
			t.Fatalf("not a sitemap index: %v\n%s", err, r.Body)
		}
		files := (len(want) + 2) / 3
		if len(idx.Sitemaps) != files {
			t.Fatalf("%d files for %d pages: %s", len(idx.Sitemaps), len(want), r.Body)
		}
		var got []string
		bodies := map[string]string{}
		for i, s := range idx.Sitemaps {
			path := fmt.Sprintf("/sitemap-%d.xml", i+1)
			if s.Loc != base+path {
				t.Fatalf("file %d is %s", i+1, s.Loc)
			}
			fr := crawl(t, e, path, "", nil)
			ls := locs(t, fr)
			if len(ls) == 0 || len(ls) > 3 || i < files-1 && len(ls) != 3 {
				t.Fatalf("%s holds %d URLs: %v", path, len(ls), ls)
			}
			got = append(got, ls...)
			bodies[path] = string(fr.Body)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("the files list %v, want each of %v once", got, want)
		}
		// Stable: the same request gives the same file.
		for path, body := range bodies {
			if again := crawl(t, e, path, "", nil); string(again.Body) != body {
				t.Fatalf("%s changed between two requests:\n%s\n%s", path, body, again.Body)
			}
		}
		if r := crawl(t, e, fmt.Sprintf("/sitemap-%d.xml", files+1), "", nil); r.Status != http.StatusNotFound {
			t.Fatalf("past the last file: %d %s", r.Status, r.Body)
		}
	})
}

// Absolute URLs are built as the other doors build them: under the
// configured base URL, else the origin the trusted proxies name.
func TestCrawlURLsFollowBaseURLAndProxies(t *testing.T) {
	const base = "https://maps.example.org"
	check := func(t *testing.T, e *env, header map[string]string) {
		robots := string(crawl(t, e, "/robots.txt", "", header).Body)
		if !strings.Contains(robots, "\nSitemap: "+base+"/sitemap.xml\n") {
			t.Fatalf("robots.txt does not name the sitemap under %s:\n%s", base, robots)
		}
		if got := locs(t, crawl(t, e, "/sitemap.xml", "", header)); !slices.Equal(got, []string{base + "/"}) {
			t.Fatalf("sitemap %v, want the front page under %s", got, base)
		}
	}
	t.Run("base URL", func(t *testing.T) {
		eachWith(t, func(c *server.Config) { c.BaseURL = base + "/" }, func(t *testing.T, e *env) { check(t, e, nil) })
	})
	t.Run("trusted proxy", func(t *testing.T) {
		proxies, err := forwarded.Parse("127.0.0.1, ::1")
		if err != nil {
			t.Fatal(err)
		}
		eachWith(t, func(c *server.Config) { c.TrustedProxies = proxies }, func(t *testing.T, e *env) {
			check(t, e, map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "maps.example.org"})
		})
	})
}
