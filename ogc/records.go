package ogc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/forwarded"
	of "github.com/geopub/geopub/internal/ogcfeatures"
	or "github.com/geopub/geopub/internal/ogcrecords"
	"github.com/geopub/geopub/internal/search"
)

// RecordsPath is where OGC API - Records is served.
const RecordsPath = "/services/ogc/records"

// RecordSource answers catalogue questions as the caller in ctx (graph's
// Resolver): the records, one record, and the groups owning records (the
// groups' collections).
type RecordSource interface {
	CatalogRecords(ctx context.Context, q catalogrecords.Query) (*catalogrecords.Page, error)
	CatalogRecord(ctx context.Context, identifier, origin string) (*catalogrecords.Record, error)
	CatalogRecordGroups(ctx context.Context, group int) ([]search.FacetEntry, error)
}

// Records serves OGC API - Records over the catalogue.
type Records struct {
	src    RecordSource
	origin string
	log    *slog.Logger
}

// NewRecords returns the front door of the catalogue as OGC API -
// Records; origin, when set (the public base URL), starts every link.
func NewRecords(src RecordSource, origin string, log *slog.Logger) *Records {
	return &Records{src: src, origin: strings.TrimRight(origin, "/"), log: log}
}

var recordsScopes = []string{auth.ScopeCatalog}

// Mount adds the routes under RecordsPath to r, which must run the auth
// middleware that accepts ?key=.
func (h *Records) Mount(r chi.Router) {
	scopes := namingScopes(recordsScopes)
	r.Route(RecordsPath, func(r chi.Router) {
		r.Use(middleware.GetHead, scopes)
		r.Get("/", h.serve(h.landing))
		r.Get("/conformance", h.serve(h.conformance))
		r.Get("/api", h.serve(h.api))
		r.Get("/collections", h.serve(h.collections))
		r.Get("/collections/{collection}", h.serve(h.collection))
		r.Get("/collections/{collection}/queryables", h.serve(h.queryables))
		r.Get("/collections/{collection}/sortables", h.serve(h.sortables))
		r.Get("/collections/{collection}/items", h.serve(h.items))
		r.Get("/collections/{collection}/items/{record}", h.serve(h.item))
	})
	r.With(middleware.GetHead, scopes).Get(RecordsPath, h.serve(h.landing))
}

// recordsCall is one request being answered.
type recordsCall struct {
	w      http.ResponseWriter
	r      *http.Request
	format string // json, html or iso
	// negotiated is set when Accept chose the format (an ISO preference
	// then falls back to JSON where there is no ISO form).
	negotiated bool
	base       string
	origin     string
}

// serve negotiates the format and checks the scope before fn runs; fn's
// errors become OGC exceptions.
func (h *Records) serve(fn func(c *recordsCall) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		origin := h.origin
		if origin == "" {
			origin = forwarded.Origin(r)
		}
		c := &recordsCall{w: w, r: r, base: origin + RecordsPath, origin: origin, format: "json"}
		w.Header().Set("Vary", "Accept")
		format, err := recordsFormat(r)
		if err != nil {
			h.fail(c, err)
			return
		}
		c.format, c.negotiated = format, r.URL.Query().Get("f") == ""
		if err := access.RequireScope(r.Context(), auth.ScopeCatalog); err != nil {
			h.fail(c, &of.Problem{Status: http.StatusUnauthorized, Code: "MissingScope", Description: apperr.As(err).Message})
			return
		}
		if err := fn(c); err != nil {
			h.fail(c, err)
		}
	}
}

// recordsFormat reads f, else Accept: HTML or XML only when asked for
// before JSON.
func recordsFormat(r *http.Request) (string, error) {
	if f, ok := r.URL.Query()["f"]; ok && len(f) > 0 {
		switch strings.ToLower(f[0]) {
		case "json", "geojson", "application/json", "application/geo+json":
			return "json", nil
		case "html", "text/html":
			return "html", nil
		case "iso", "xml", "application/xml", or.TypeISO:
			return "iso", nil
		}
		return "", &of.Problem{Status: http.StatusBadRequest, Code: "InvalidParameterValue",
			Description: "f must be json, html or (for one record) iso"}
	}
	accept := r.Header.Get("Accept")
	ji := strings.Index(accept, "json")
	before := func(t string) bool {
		i := strings.Index(accept, t)
		return i >= 0 && (ji < 0 || i < ji)
	}
	switch {
	case before("text/html"):
		return "html", nil
	case before("application/xml"), before(or.TypeISO):
		return "iso", nil
	}
	return "json", nil
}

// fail writes err as an OGC exception (or an HTML page): refusals with
// their status, unexpected errors logged and answered 500 without
// details.
func (h *Records) fail(c *recordsCall, err error) {
	var p *of.Problem
	switch u, ok := unavailable(c.w, err); {
	case ok:
		p = &of.Problem{Status: u.Code.HTTPStatus(), Code: string(u.Code), Description: u.Message}
	case errors.As(err, &p):
	case errors.Is(err, catalogrecords.ErrInvalid):
		p = &of.Problem{Status: http.StatusBadRequest, Code: "InvalidParameterValue", Description: err.Error()}
	case apperr.As(err).Code != apperr.Internal:
		e := apperr.As(err)
		p = &of.Problem{Status: e.Code.HTTPStatus(), Code: string(e.Code), Description: e.Message}
		if e.Code == apperr.Invalid {
			p.Code = "InvalidParameterValue"
		}
	default:
		h.log.ErrorContext(c.r.Context(), "ogc records request failed", "path", c.r.URL.Path, "err", err)
		p = &of.Problem{Status: http.StatusInternalServerError, Code: "ServerError", Description: "Internal error."}
	}
	if c.format == "html" {
		var b bytes.Buffer
		_ = of.WriteHTML(&b, of.HTMLPage{Title: http.StatusText(p.Status), Description: p.Description})
		c.w.Header().Set("Content-Type", "text/html; charset=utf-8")
		c.w.WriteHeader(p.Status)
		_, _ = c.w.Write(b.Bytes())
		return
	}
	body, _ := json.Marshal(map[string]string{"code": p.Code, "description": p.Description})
	c.w.Header().Set("Content-Type", of.TypeJSON)
	c.w.WriteHeader(p.Status)
	_, _ = c.w.Write(body)
}

// send writes v as JSON of a media type, or page as HTML. The ISO form
// is only a record's; elsewhere f=iso is refused.
func (c *recordsCall) send(mediaType string, v any, page func() of.HTMLPage) error {
	var b bytes.Buffer
	switch c.format {
	case "html":
		if err := of.WriteHTML(&b, page()); err != nil {
			return err
		}
		c.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	case "iso":
		if c.negotiated {
			c.format = "json"
			return c.send(mediaType, v, page)
		}
		return &of.Problem{Status: http.StatusBadRequest, Code: "InvalidParameterValue",
			Description: "only a record has an ISO 19139 form: f must be json or html here"}
	default:
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		c.w.Header().Set("Content-Type", mediaType)
	}
	c.w.WriteHeader(http.StatusOK)
	_, err := c.w.Write(b.Bytes())
	return err
}

// onlyF refuses any parameter but f and key on the documents that take
// no others.
func onlyF(r *http.Request) error {
	for k := range r.URL.Query() {
		if k != "f" && k != "key" {
			return &of.Problem{Status: http.StatusBadRequest, Code: "InvalidParameterValue",
				Description: strconv.Quote(k) + " is not a parameter of this resource (it takes f)"}
		}
	}
	return nil
}

func (h *Records) landing(c *recordsCall) error {
	l := or.NewLanding(c.base)
	return c.send(of.TypeJSON, l, func() of.HTMLPage {
		return of.HTMLPage{Title: l.Title, Description: l.Description, Links: l.Links}
	})
}

func (h *Records) conformance(c *recordsCall) error {
	d := of.ConformanceDoc{ConformsTo: or.Conformance()}
	return c.send(of.TypeJSON, d, func() of.HTMLPage {
		t := &of.HTMLTable{Head: []string{"Conformance class"}}
		for _, u := range d.ConformsTo {
			t.Rows = append(t.Rows, of.HTMLRow{Href: u, Cells: []string{u}})
		}
		return of.HTMLPage{Title: "Conformance", Table: t}
	})
}

func (h *Records) api(c *recordsCall) error {
	doc := or.OpenAPI(c.base)
	return c.send(of.TypeOpenAPI, doc, func() of.HTMLPage {
		enc, _ := json.MarshalIndent(doc, "", "  ")
		return of.HTMLPage{Title: "API definition", Pre: string(enc)}
	})
}

// collectionList is the catalogue and one collection per group owning a
// record the caller sees.
func (h *Records) collectionList(ctx context.Context) ([]or.Collection, error) {
	groups, err := h.src.CatalogRecordGroups(ctx, 0)
	if err != nil {
		return nil, err
	}
	out := []or.Collection{or.Catalogue()}
	for _, g := range groups {
		if id, err := strconv.Atoi(g.Key); err == nil && id > 0 {
			out = append(out, or.GroupCollection(id, g.Name))
		}
	}
	return out, nil
}

// lookup returns the requested collection, or a 404 problem when the
// caller sees no record of that group.
func (h *Records) lookup(c *recordsCall) (or.Collection, error) {
	id := chi.URLParam(c.r, "collection")
	missing := &of.Problem{Status: http.StatusNotFound, Code: "NotFound", Description: "There is no collection " + strconv.Quote(id) + " you may read."}
	group, ok := or.ParseCollectionID(id)
	if !ok {
		return or.Collection{}, missing
	}
	if group == 0 {
		return or.Catalogue(), nil
	}
	groups, err := h.src.CatalogRecordGroups(c.r.Context(), group)
	if err != nil {
		return or.Collection{}, err
	}
	if len(groups) == 0 {
		return or.Collection{}, missing
	}
	return or.GroupCollection(group, groups[0].Name), nil
}

func (h *Records) collections(c *recordsCall) error {
	if err := onlyF(c.r); err != nil {
		return err
	}
	cs, err := h.collectionList(c.r.Context())
	if err != nil {
		return err
	}
	d := or.NewCollectionsDoc(cs, c.base)
	return c.send(of.TypeJSON, d, func() of.HTMLPage {
		t := &of.HTMLTable{Head: []string{"Collection", "Title", "Description"}}
		for _, cd := range d.Collections {
			t.Rows = append(t.Rows, of.HTMLRow{Href: c.base + "/collections/" + url.PathEscape(cd.ID) + "?f=html",
				Cells: []string{cd.ID, cd.Title, cd.Description}})
		}
		return of.HTMLPage{Title: "Collections", Links: d.Links, Table: t}
	})
}

func (h *Records) collection(c *recordsCall) error {
	if err := onlyF(c.r); err != nil {
		return err
	}
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	d := or.NewCollectionDoc(col, c.base)
	return c.send(of.TypeJSON, d, func() of.HTMLPage {
		return of.HTMLPage{Title: d.Title, Description: d.Description, Links: d.Links}
	})
}

func (h *Records) queryables(c *recordsCall) error {
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	doc := or.Queryables(c.base + "/collections/" + url.PathEscape(col.ID) + "/queryables")
	return c.send(of.TypeSchema, doc, func() of.HTMLPage {
		t := &of.HTMLTable{Head: []string{"Queryable", "Description"}}
		for _, n := range or.QueryableNames() {
			t.Rows = append(t.Rows, of.HTMLRow{Cells: []string{n, catalogrecords.Queryables[n]}})
		}
		return of.HTMLPage{Title: col.Title + " — queryables", Table: t}
	})
}

func (h *Records) sortables(c *recordsCall) error {
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	doc := or.Sortables(c.base + "/collections/" + url.PathEscape(col.ID) + "/sortables")
	return c.send(of.TypeSchema, doc, func() of.HTMLPage {
		t := &of.HTMLTable{Head: []string{"Sortable"}, Rows: []of.HTMLRow{{Cells: []string{"title"}}, {Cells: []string{"updated"}}}}
		return of.HTMLPage{Title: col.Title + " — sortables", Table: t}
	})
}

// recordsLinkQuery is the request's query string as links repeat it:
// without f and the key (credentials are never written back).
func recordsLinkQuery(r *http.Request) url.Values {
	q := url.Values{}
	for k, vs := range r.URL.Query() {
		if k != "f" && k != "key" {
			q[k] = vs
		}
	}
	return q
}

func (h *Records) items(c *recordsCall) error {
	it, err := or.ParseItems(c.r.URL.Query())
	if err != nil {
		return err
	}
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	page := &catalogrecords.Page{}
	if !it.Empty {
		q := it.Query
		q.Origin = c.origin
		col.Restrict(&q)
		if page, err = h.src.CatalogRecords(c.r.Context(), q); err != nil {
			return err
		}
	}
	fc := or.NewFeatureCollection(page, col.ID, c.base, recordsLinkQuery(c.r), time.Now())
	return c.send(or.TypeGeoJSON, fc, func() of.HTMLPage {
		next := ""
		if page.Next != "" {
			q := recordsLinkQuery(c.r)
			q.Set("f", "html")
			q.Set("cursor", page.Next)
			next = c.base + "/collections/" + url.PathEscape(col.ID) + "/items?" + q.Encode()
		}
		return or.ItemsPage(col, fc, next)
	})
}

func (h *Records) item(c *recordsCall) error {
	if err := onlyF(c.r); err != nil {
		return err
	}
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	id := chi.URLParam(c.r, "record")
	missing := &of.Problem{Status: http.StatusNotFound, Code: "NotFound", Description: "There is no record " + strconv.Quote(id) + " in " + col.ID + " you may read."}
	if _, _, ok := catalogrecords.ParseIdentifier(id); !ok {
		return missing
	}
	rec, err := h.src.CatalogRecord(c.r.Context(), id, c.origin)
	if err != nil {
		return err
	}
	if col.GroupID != 0 && rec.GroupID != col.GroupID {
		return missing
	}
	if c.format == "iso" {
		doc, err := catalogrecords.ISO19139(rec)
		if err != nil {
			return err
		}
		c.w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		c.w.WriteHeader(http.StatusOK)
		_, err = c.w.Write(doc)
		return err
	}
	out := or.NewRecord(rec, col.ID, c.base)
	return c.send(or.TypeGeoJSON, out, func() of.HTMLPage { return or.RecordPage(out) })
}
