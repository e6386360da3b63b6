// Package htmlview serves the readable HTML pages that the url_html and
// html_url links of API responses point at (/layers/1/, /sets/2/,
// /items/c3/, /groups/4-slug/, ...), so that links users share are not
// dead until the web catalogue exists. Pages are rendered on the server
// from embedded templates, with no outside asset. The page of a published
// layer (vector, grid or raster) or set shows a map of its tiles (package
// mappreview) when the caller may use them; other pages carry no script.
// Dataset pages embed a schema.org Dataset as JSON-LD (jsonld.go), a data
// block browsers do not run; robots.txt and the sitemaps of
// internal/sitemap are served here too (crawl.go).
//
// A page reads its object through the same resolver call as the REST
// detail view, under the caller's credentials (a session cookie, as
// browsers send, or a token): an object the caller may not read is a 404
// page, whichever reason the resolver gives, so a page never tells that
// a private object exists.
package htmlview

import (
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/datatable"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/vectortiles"
	"github.com/geopub/geopub/web/mappreview"
)

//go:embed templates/*.html
var templates embed.FS

var pageTmpl = template.Must(template.ParseFS(templates, "templates/*.html"))

// Views serves the pages.
type Views struct {
	res    *graph.Resolver
	logger *slog.Logger
	// explorer is the path of the GraphQL explorer pages link to.
	explorer string
	// tiles draw the maps of layer and set pages; none: no maps.
	tiles mappreview.Services
	// baseURL is the site's public origin for absolute URLs (JSON-LD,
	// robots.txt, sitemaps); "" is the request's own.
	baseURL string
	// sitemapURLs caps the URLs of one sitemap file; 0 is
	// sitemap.MaxURLs.
	sitemapURLs int
	// tables serves the data-table pages; none: no such pages.
	tables *datatable.Service
}

// New returns the pages over the resolvers; explorer is the path of the
// GraphQL explorer (explorer.Path).
func New(res *graph.Resolver, logger *slog.Logger, explorer string) *Views {
	return &Views{res: res, logger: logger, explorer: explorer}
}

// WithMaps makes the pages of published layers and sets show a map of
// their tiles under the tile service rules: vector tiles served by tiles,
// and (rasters not nil) the image tiles of grid and raster layers served
// by rasters.
func (v *Views) WithMaps(tiles *vectortiles.Service, rasters *rastertiles.Service) *Views {
	v.tiles = mappreview.Services{Vector: tiles, Raster: rasters}
	return v
}

// WithSite sets the public base URL absolute URLs are built under (""
// for the request's own origin, as the trusted proxies name it) and the
// URLs of one sitemap file (0 for the protocol's 50,000; tests lower it).
func (v *Views) WithSite(baseURL string, sitemapURLs int) *Views {
	v.baseURL, v.sitemapURLs = baseURL, sitemapURLs
	return v
}

// loader reads the object a request names, as the caller may see it.
type loader func(r *http.Request) (*Page, error)

// Routes adds the pages to r (GET), each with and without its trailing
// slash, and the doors for search engines (robots.txt, sitemaps).
// r must run the authentication middleware.
func (v *Views) Routes(r chi.Router) {
	add := func(pattern string, load loader) {
		h := v.serve(load)
		r.Get(pattern, h)
		r.Get(pattern+"/", h)
	}
	for pattern, load := range map[string]loader{
		"/layers/{id:[0-9]+}":              v.layer("layers"),
		"/tables/{id:[0-9]+}":              v.layer("tables"),
		"/sets/{id:[0-9]+}":                v.set,
		"/documents/{id:[0-9]+}":           v.document,
		"/items/{id:c[0-9]+}":              v.item,
		"/groups/{id:[0-9]+}":              v.group,
		"/groups/{id:[0-9]+}-{slug:[^/]*}": v.group,
		"/sources/{id:[0-9]+}":             v.source,
		"/comments/{id:[0-9]+}":            v.comment,
	} {
		add(pattern, load)
	}
	v.metadataRoutes(add)
	v.dataTableRoutes(r)
	v.crawlRoutes(r)
}

// serve renders the page load returns; an object the caller may not read
// (absent, private, or needing a sign-in) is the same 404 page.
func (v *Views) serve(load loader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := load(r)
		status := http.StatusOK
		if err != nil {
			switch e := apperr.As(err); e.Code {
			case apperr.NotFound, apperr.PermissionDenied, apperr.Unauthenticated, apperr.Invalid:
				status = http.StatusNotFound
				p = &Page{Kind: "Not found", Title: "Not found",
					Description: "There is nothing here, or you may not see it. Signed-in users may see more."}
			case apperr.Unavailable, apperr.TimedOut:
				status = e.Code.HTTPStatus()
				if e.RetryAfter > 0 {
					w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
				}
				p = &Page{Kind: "Error", Title: "Service unavailable", Description: e.Message}
			default:
				v.logger.ErrorContext(r.Context(), "rendering a page failed", "path", r.URL.Path, "err", err)
				status = http.StatusInternalServerError
				p = &Page{Kind: "Error", Title: "Internal server error", Description: "The page could not be shown."}
			}
		}
		p.Explorer = v.explorer
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		csp := "default-src 'none'; style-src 'unsafe-inline'"
		if p.Map != nil {
			csp = mappreview.ContentSecurityPolicy
		}
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "private, no-cache")
		w.WriteHeader(status)
		if err := pageTmpl.ExecuteTemplate(w, "page.html", p); err != nil {
			v.logger.ErrorContext(r.Context(), "writing a page failed", "path", r.URL.Path, "err", err)
		}
	}
}
