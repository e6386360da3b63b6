// Package dcatfeed serves the catalogue as DCAT feeds for harvesters
// (CKAN's ckanext-dcat, the EU Data Portal, data.gov):
//
//   - GET /services/dcat/catalog: DCAT-AP 3 in JSON-LD, Turtle or RDF/XML,
//     chosen by Accept (application/ld+json or application/json, text/turtle,
//     application/rdf+xml; JSON-LD when anything goes) or by ?format=
//     (jsonld, ttl, rdf), 406 when Accept names none of them. Paged as
//     ckanext-dcat pages: ?page=N (from 1) and ?page_size= (default 100,
//     at most 1000), the page described by a hydra:PagedCollection
//     (totalItems, next, ...) and a Link: rel="next" header.
//   - GET /data.json: DCAT-US 3 (JSON), paged the same way with a default
//     page of 1000, so that catalogues up to that size are one document
//     as data.gov's harvester expects; a larger one carries a "next" URL
//     (and Link header) to the following page.
//
// Both read the catalogue as the caller may see it (anonymous, a session
// or a token with the catalog scope), through the resolver call every
// metadata door shares (graph's CatalogRecords), so a private or
// unpublished dataset never appears for someone who may not see it, and
// the same caller sees the same datasets here as in /data/, CSW and
// Records. The mapping itself lives in internal/dcat.
package dcatfeed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/dcat"
	"github.com/geopub/geopub/internal/forwarded"
)

// The feeds' paths.
const (
	CatalogPath  = "/services/dcat/catalog"
	DataJSONPath = "/data.json"
)

// Catalogue answers record queries for the caller in ctx (graph's
// Resolver.CatalogRecords).
type Catalogue interface {
	CatalogRecords(ctx context.Context, q catalogrecords.Query) (*catalogrecords.Page, error)
}

// Site is how the feeds describe the catalogue itself.
type Site struct {
	Title, Description, Publisher string
}

// DefaultSite describes a Geopub service that was told nothing else.
var DefaultSite = Site{
	Title:       "Geopub catalogue",
	Description: "The datasets published on this Geopub service: layers, tables, sets, documents and catalog items.",
	Publisher:   "Geopub",
}

// Feeds serves the two feeds.
type Feeds struct {
	cat     Catalogue
	baseURL string
	logger  *slog.Logger
	site    Site
}

// New returns the feeds over cat; baseURL is the public origin (the
// request's own when empty).
func New(cat Catalogue, baseURL string, logger *slog.Logger) *Feeds {
	return &Feeds{cat: cat, baseURL: strings.TrimRight(baseURL, "/"), logger: logger, site: DefaultSite}
}

// Routes adds the feeds to r, which must run the authentication
// middleware.
func (f *Feeds) Routes(r chi.Router) {
	r.Get(CatalogPath, f.serveAP)
	r.Get(DataJSONPath, f.serveUS)
}

// origin is scheme://host for the feed's IRIs.
func (f *Feeds) origin(r *http.Request) string {
	if f.baseURL != "" {
		return f.baseURL
	}
	return forwarded.Origin(r)
}

// fetch reads one page of records for the caller.
func (f *Feeds) fetch(r *http.Request, origin string, p params) (*catalogrecords.Page, error) {
	return f.cat.CatalogRecords(r.Context(), catalogrecords.Query{
		// Title order ends on the identifier: pages do not shift while a
		// harvester walks them (the default order is popularity).
		Sort:   catalogrecords.SortTitle,
		Limit:  p.size,
		Offset: (p.page - 1) * p.size,
		Origin: origin,
	})
}

// pageURL is path's URL for page n, keeping the size and format asked.
func pageURL(origin, path string, p params, n int) string {
	q := url.Values{"page": {strconv.Itoa(n)}, "page_size": {strconv.Itoa(p.size)}}
	if p.format != "" {
		q.Set("format", p.format)
	}
	return origin + path + "?" + q.Encode()
}

// lastPage is the number of the last page (1 for an empty catalogue).
func lastPage(matched, size int) int {
	if matched <= 0 {
		return 1
	}
	return (matched + size - 1) / size
}

func (f *Feeds) catalog(origin string) dcat.Catalog {
	return dcat.Catalog{IRI: origin + CatalogPath, Origin: origin,
		Title: f.site.Title, Description: f.site.Description, Publisher: f.site.Publisher}
}

// serveAP answers the DCAT-AP 3 feed.
func (f *Feeds) serveAP(w http.ResponseWriter, r *http.Request) {
	p, err := parseParams(r.URL.Query(), DefaultPageSize, true)
	if err != nil {
		f.fail(w, r, apperr.Field("query", err.Error()))
		return
	}
	var syn syntax
	if p.format != "" {
		for _, s := range syntaxes {
			if s.name == p.format {
				syn = s
			}
		}
	} else if syn, err = negotiate(r.Header.Get("Accept")); err != nil {
		// apperr has no 406: written here.
		writeDetail(w, http.StatusNotAcceptable, "NOT_ACCEPTABLE", err.Error())
		return
	}
	origin := f.origin(r)
	page, err := f.fetch(r, origin, p)
	if err != nil {
		f.fail(w, r, err)
		return
	}
	last := lastPage(page.Matched, p.size)
	paging := &dcat.Paging{
		Self:  pageURL(origin, CatalogPath, p, p.page),
		First: pageURL(origin, CatalogPath, p, 1), Last: pageURL(origin, CatalogPath, p, last),
		Total: page.Matched, PerPage: p.size,
	}
	if p.page < last {
		paging.Next = pageURL(origin, CatalogPath, p, p.page+1)
	}
	if p.page > 1 {
		paging.Previous = pageURL(origin, CatalogPath, p, min(p.page-1, last))
	}
	g := dcat.Build(f.catalog(origin), page.Records, paging)
	var buf bytes.Buffer
	switch syn.name {
	case "ttl":
		err = dcat.WriteTurtle(&buf, g)
	case "rdf":
		err = dcat.WriteRDFXML(&buf, g)
	default:
		err = dcat.WriteJSONLD(&buf, g)
	}
	if err != nil {
		f.fail(w, r, err)
		return
	}
	f.write(w, syn.contentType, paging.Next, buf.Bytes())
}

// serveUS answers data.json.
func (f *Feeds) serveUS(w http.ResponseWriter, r *http.Request) {
	p, err := parseParams(r.URL.Query(), MaxPageSize, false)
	if err != nil {
		f.fail(w, r, apperr.Field("query", err.Error()))
		return
	}
	origin := f.origin(r)
	page, err := f.fetch(r, origin, p)
	if err != nil {
		f.fail(w, r, err)
		return
	}
	next := ""
	if p.page < lastPage(page.Matched, p.size) {
		next = pageURL(origin, DataJSONPath, p, p.page+1)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(dcat.BuildUS(f.catalog(origin), page.Records, page.Matched, next)); err != nil {
		f.fail(w, r, err)
		return
	}
	f.write(w, "application/json", next, buf.Bytes())
}

// write sends a feed page; the Link header names the next page.
func (f *Feeds) write(w http.ResponseWriter, contentType, next string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Vary", "Accept, Authorization, Cookie")
	h.Set("X-Content-Type-Options", "nosniff")
	if next != "" {
		h.Set("Link", fmt.Sprintf("<%s>; rel=\"next\"", next))
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// fail writes err as {"detail", "code"}, the REST API's error shape;
// internal errors are logged and not shown.
func (f *Feeds) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, catalogrecords.ErrInvalid) && apperr.CodeOf(err) == apperr.Internal {
		err = apperr.Wrap(err, apperr.Invalid, err.Error())
	}
	e := apperr.As(err)
	if e.Code == apperr.Internal {
		f.logger.ErrorContext(r.Context(), "DCAT feed failed", "path", r.URL.Path, "err", err)
	}
	detail := e.Message
	if len(e.Fields) > 0 {
		var parts []string
		for k, msgs := range e.Fields {
			parts = append(parts, k+": "+strings.Join(msgs, "; "))
		}
		detail = strings.Join(parts, " ")
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	writeDetail(w, e.Code.HTTPStatus(), string(e.Code), detail)
}

// writeDetail writes an error body.
func writeDetail(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"detail": detail, "code": code})
}
