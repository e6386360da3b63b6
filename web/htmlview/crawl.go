package htmlview

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/sitemap"
	"github.com/geopub/geopub/web/mappreview"
)

// The doors for search engines (issue 27 point 3): /robots.txt and the
// sitemaps of internal/sitemap. Both are the same for every caller (the
// sitemap is the catalogue as an anonymous visitor sees it, whoever
// asks), so shared caches may keep them a while.

// crawlCache lets caches keep robots.txt and sitemaps five minutes.
const crawlCache = "public, max-age=300"

// crawlRoutes adds /robots.txt, /sitemap.xml and /sitemap-{n}.xml.
// Sitemaps are compressed when the client accepts it (a 50,000-URL file
// is megabytes of XML).
func (v *Views) crawlRoutes(r chi.Router) {
	r.Get("/robots.txt", v.robots)
	z := middleware.Compress(5, "application/xml", "text/plain")
	r.With(z).Get("/sitemap.xml", v.sitemapRoot)
	r.With(z).Get("/sitemap-{n:[0-9]+}.xml", v.sitemapFile)
}

// origin is the site's scheme://host for absolute URLs: the configured
// base URL, else the request's own as the trusted proxies name it.
func (v *Views) origin(r *http.Request) string {
	if o := strings.TrimRight(v.baseURL, "/"); o != "" {
		return o
	}
	return forwarded.Origin(r)
}

// disallowed are the paths crawlers are asked to leave alone: the APIs
// and services, the GraphQL endpoint and explorer, the map preview's
// assets, operations endpoints, pages that are 404 to anonymous callers
// (sources, comments) and version history (every version of every
// dataset: many pages, none the dataset's own).
func (v *Views) disallowed() []string {
	explorer := v.explorer
	if explorer == "" {
		explorer = "/graphiql"
	}
	return []string{"/services/", "/graphql", explorer, mappreview.Path + "/", "/metrics", "/healthz", "/readyz",
		"/sources/", "/comments/", "/groups/", "/*/versions/"}
}

func (v *Views) robots(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	b.WriteString("User-agent: *\nAllow: /\n")
	for _, p := range v.disallowed() {
		b.WriteString("Disallow: " + p + "\n")
	}
	b.WriteString("\nSitemap: " + v.origin(r) + "/sitemap.xml\n")
	writeCrawl(w, r, "text/plain; charset=utf-8", []byte(b.String()))
}

// sitemapRoot is the only sitemap file when the pages fit in one, else
// the index of the files.
func (v *Views) sitemapRoot(w http.ResponseWriter, r *http.Request) {
	sm := sitemap.New(v.res.Search, v.sitemapURLs)
	files, err := sm.Files(r.Context())
	if err != nil {
		v.crawlFailed(w, r, err)
		return
	}
	if files > 1 {
		writeCrawl(w, r, "application/xml; charset=utf-8", sitemap.Index(v.origin(r), files))
		return
	}
	v.writeFile(w, r, sm, 1)
}

func (v *Views) sitemapFile(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(chi.URLParam(r, "n"))
	if err != nil {
		n = 0 // too many digits: no such file
	}
	v.writeFile(w, r, sitemap.New(v.res.Search, v.sitemapURLs), n)
}

func (v *Views) writeFile(w http.ResponseWriter, r *http.Request, sm *sitemap.Sitemap, n int) {
	pages, err := sm.File(r.Context(), n)
	if errors.Is(err, sitemap.ErrNoFile) {
		http.Error(w, "There is no sitemap file "+strconv.Itoa(n)+"; /sitemap.xml names the files.", http.StatusNotFound)
		return
	}
	if err != nil {
		v.crawlFailed(w, r, err)
		return
	}
	writeCrawl(w, r, "application/xml; charset=utf-8", sitemap.URLSet(v.origin(r), pages))
}

// crawlFailed answers a sitemap the index could not give: 503, for a
// crawler to come back later.
func (v *Views) crawlFailed(w http.ResponseWriter, r *http.Request, err error) {
	v.logger.ErrorContext(r.Context(), "building a sitemap failed", "path", r.URL.Path, "err", err)
	w.Header().Set("Retry-After", "60")
	http.Error(w, "The sitemap is not available now; try again later.", http.StatusServiceUnavailable)
}

// writeCrawl writes body with a validator: a weak ETag of the body (weak,
// since compression changes the bytes, not the content), and 304 when
// If-None-Match names it.
func writeCrawl(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	sum := sha256.Sum256(body)
	etag := `W/"` + hex.EncodeToString(sum[:12]) + `"`
	h := w.Header()
	h.Set("Cache-Control", crawlCache)
	h.Set("ETag", etag)
	h.Set("X-Content-Type-Options", "nosniff")
	if matches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", contentType)
	_, _ = w.Write(body)
}

// matches reports whether an If-None-Match list names etag (weakly
// compared, as RFC 9110 says for If-None-Match) or is *.
func matches(inm, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, c := range strings.Split(inm, ",") {
		c = strings.TrimSpace(c)
		if c == "*" || strings.TrimPrefix(c, "W/") == want {
			return true
		}
	}
	return false
}
