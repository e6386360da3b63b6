package ogc

import (
	"bytes"
	"encoding/json"
	"errors"
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
	"github.com/geopub/geopub/internal/forwarded"
	of "github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/usage"
)

// FeaturesPath is where OGC API - Features is served.
const FeaturesPath = "/services/ogc/features"

// Features serves OGC API - Features over s.
type Features struct {
	s      *of.Service
	origin string
}

// NewFeatures returns the front door of s; origin, when set (the
// server's public base URL), starts every link, else the request's own
// scheme and host do.
func NewFeatures(s *of.Service, origin string) *Features {
	return &Features{s: s, origin: strings.TrimRight(origin, "/")}
}

var featuresScopes = []string{of.Scope}

// namingScopes names the token scopes a door accepts in every answer.
func namingScopes(scopes []string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth.SetAcceptedScopes(w.Header(), scopes)
			next.ServeHTTP(w, r)
		})
	}
}

// Mount adds the routes under FeaturesPath to r, which must run the auth
// middleware that accepts ?key=.
func (h *Features) Mount(r chi.Router) {
	scopes := namingScopes(featuresScopes)
	r.Route(FeaturesPath, func(r chi.Router) {
		// HEAD answers as GET does (HTTP 1.1, /req/core/http).
		r.Use(middleware.GetHead, scopes)
		r.Get("/", h.serve(h.landing))
		r.Get("/conformance", h.serve(h.conformance))
		r.Get("/api", h.serve(h.api))
		r.Get("/collections", h.serve(h.collections))
		r.Get("/collections/{collection}", h.serve(h.collection))
		r.Get("/collections/{collection}/items", h.serve(h.items))
		r.Get("/collections/{collection}/queryables", h.serve(h.queryables))
		r.Get("/collections/{collection}/items/{feature}", h.serve(h.item))
	})
	// The root answers without its final slash too: QGIS does not follow
	// a redirect there.
	r.With(middleware.GetHead, scopes).Get(FeaturesPath, h.serve(h.landing))
}

// call is one request being answered.
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	html bool
	base string
	v    *access.Viewer
}

// serve negotiates the format, checks the scope and resolves the viewer
// before fn runs; fn's errors become OGC exceptions.
func (h *Features) serve(fn func(c *call) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := &call{w: w, r: r, base: baseURL(h.origin, r)}
		w.Header().Set("Vary", "Accept")
		html, err := wantsHTML(r)
		if err != nil {
			h.fail(c, err)
			return
		}
		c.html = html
		if err := access.RequireScope(r.Context(), of.Scope); err != nil {
			h.fail(c, &of.Problem{Status: http.StatusUnauthorized, Code: "MissingScope", Description: apperr.As(err).Message})
			return
		}
		if c.v, err = access.NewViewer(r.Context(), h.s.Client(), auth.FromContext(r.Context())); err != nil {
			h.fail(c, err)
			return
		}
		if err := fn(c); err != nil {
			h.fail(c, err)
		}
	}
}

// wantsHTML reads f, else Accept: HTML only when asked for before JSON.
func wantsHTML(r *http.Request) (bool, error) {
	if f, ok := r.URL.Query()["f"]; ok && len(f) > 0 {
		switch strings.ToLower(f[0]) {
		case "json", "geojson", "application/json", "application/geo+json":
			return false, nil
		case "html", "text/html":
			return true, nil
		}
		return false, &of.Problem{Status: http.StatusBadRequest, Code: "InvalidParameterValue",
			Description: "f must be json or html"}
	}
	accept := r.Header.Get("Accept")
	hi := strings.Index(accept, "text/html")
	ji := strings.Index(accept, "json")
	return hi >= 0 && (ji < 0 || hi < ji), nil
}

// baseURL is the absolute URL of the API root: under origin, else as the
// caller reached it.
func baseURL(origin string, r *http.Request) string {
	if origin != "" {
		return origin + FeaturesPath
	}
	return forwarded.Origin(r) + FeaturesPath
}

// fail writes err as an OGC exception (or an HTML page); unexpected
// errors are logged and answered 500 without details.
func (h *Features) fail(c *call, err error) {
	var p *of.Problem
	if u, ok := unavailable(c.w, err); ok {
		p = &of.Problem{Status: u.Code.HTTPStatus(), Code: string(u.Code), Description: u.Message}
	} else if !errors.As(err, &p) {
		h.s.Logger().ErrorContext(c.r.Context(), "ogc features request failed", "path", c.r.URL.Path, "err", err)
		p = &of.Problem{Status: http.StatusInternalServerError, Code: "ServerError", Description: "Internal error."}
	}
	if c.html {
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

// send writes v as JSON of a media type, or page as HTML.
func (c *call) send(mediaType string, v any, page func() of.HTMLPage) error {
	var b bytes.Buffer
	if c.html {
		if err := of.WriteHTML(&b, page()); err != nil {
			return err
		}
		c.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	} else {
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

func notFound(what string) *of.Problem {
	return &of.Problem{Status: http.StatusNotFound, Code: "NotFound", Description: what}
}

func (h *Features) landing(c *call) error {
	l := of.NewLanding(c.base)
	return c.send(of.TypeJSON, l, func() of.HTMLPage {
		return of.HTMLPage{Title: l.Title, Description: l.Description, Links: l.Links}
	})
}

func (h *Features) conformance(c *call) error {
	d := of.ConformanceDoc{ConformsTo: of.Conformance()}
	return c.send(of.TypeJSON, d, func() of.HTMLPage {
		t := &of.HTMLTable{Head: []string{"Conformance class"}}
		for _, u := range d.ConformsTo {
			t.Rows = append(t.Rows, of.HTMLRow{Href: u, Cells: []string{u}})
		}
		return of.HTMLPage{Title: "Conformance", Table: t}
	})
}

func (h *Features) api(c *call) error {
	cs, err := h.s.Collections(c.r.Context(), c.v)
	if err != nil {
		return err
	}
	doc := of.OpenAPI(c.base, cs)
	return c.send(of.TypeOpenAPI, doc, func() of.HTMLPage {
		enc, _ := json.MarshalIndent(doc, "", "  ")
		return of.HTMLPage{Title: "API definition", Pre: string(enc),
			Links: []of.Link{{Href: c.base + "/api?f=json", Rel: "alternate", Type: of.TypeOpenAPI, Title: "As OpenAPI 3.0 JSON"}}}
	})
}

func (h *Features) collections(c *call) error {
	cs, err := h.s.Collections(c.r.Context(), c.v)
	if err != nil {
		return err
	}
	if err := h.s.AddExtents(c.r.Context(), cs...); err != nil {
		return err
	}
	d := of.NewCollectionsDoc(cs, c.base)
	return c.send(of.TypeJSON, d, func() of.HTMLPage {
		t := &of.HTMLTable{Head: []string{"Collection", "Title", "Description"}}
		for _, cd := range d.Collections {
			t.Rows = append(t.Rows, of.HTMLRow{Href: c.base + "/collections/" + url.PathEscape(cd.ID) + "?f=html",
				Cells: []string{cd.ID, cd.Title, cd.Description}})
		}
		return of.HTMLPage{Title: "Collections", Links: d.Links, Table: t}
	})
}

// lookup returns the requested collection or a 404 problem.
func (h *Features) lookup(c *call) (*of.Collection, error) {
	id := chi.URLParam(c.r, "collection")
	col, err := h.s.Collection(c.r.Context(), c.v, id)
	if err != nil {
		return nil, err
	}
	if col == nil {
		return nil, notFound("There is no collection " + strconv.Quote(id) + " you may read.")
	}
	return col, nil
}

func (h *Features) collection(c *call) error {
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	if err := h.s.AddExtents(c.r.Context(), col); err != nil {
		return err
	}
	d := of.NewCollectionDoc(col, c.base)
	return c.send(of.TypeJSON, d, func() of.HTMLPage {
		t := &of.HTMLTable{Head: []string{"Field", "Type"}}
		for _, f := range col.Fields {
			t.Rows = append(t.Rows, of.HTMLRow{Cells: []string{f.Name, f.Type}})
		}
		return of.HTMLPage{Title: d.Title, Description: d.Description, Links: d.Links, Table: t}
	})
}

// linkQuery is the request's query string as links repeat it: without
// f, cursor and the key (credentials are never written back).
func linkQuery(r *http.Request) url.Values {
	q := url.Values{}
	for k, vs := range r.URL.Query() {
		switch k {
		case "f", "cursor", "key":
			continue
		}
		q[k] = vs
	}
	return q
}

// transformer returns the reprojection to crs, nil for CRS84.
func transformer(crs of.CRS) (*of.Transformer, error) {
	if crs.IsCRS84() {
		return nil, nil
	}
	return of.NewTransformer(crs)
}

func (h *Features) items(c *call) error {
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	q, err := of.ParseItems(c.r.URL.Query(), col)
	if err != nil {
		return err
	}
	filter := of.Filter{Props: q.Props, Expr: q.Filter, Collection: col, Within: of.SpatialBounds(q.Filter, col)}
	if tf := col.TimeField(); tf != "" && q.Time != nil {
		// Collections without a time field ignore datetime.
		filter.Time, filter.TimeField = q.Time, tf
	}
	if q.BBox != nil {
		box := [4]float64{q.BBox[0], q.BBox[1], q.BBox[2], q.BBox[3]}
		if !q.BBoxCRS.IsCRS84() {
			t, err := of.NewTransformer(q.BBoxCRS)
			if err != nil {
				return err
			}
			// The box's own outline is the filter, its envelope only
			// picks candidates.
			box, filter.Outlines, err = t.InverseBox(box)
			t.Close()
			if err != nil {
				return &of.Problem{Status: http.StatusBadRequest, Code: "InvalidParameterValue",
					Description: "bbox is outside the area of bbox-crs"}
			}
		}
		filter.Boxes = of.BoxesOf(box)
	}
	tr, err := transformer(q.CRS)
	if err != nil {
		return err
	}
	if tr != nil {
		defer tr.Close()
	}
	page, err := h.s.Items(c.r.Context(), col, filter, q.After, q.Limit)
	if err != nil {
		return err
	}
	links := of.ItemsLinks(col, c.base, linkQuery(c.r), page.Next)
	fc, err := of.NewFeatureCollection(page, col.FieldNames(), tr, links, time.Now())
	if err != nil {
		return err
	}
	c.w.Header().Set("Content-Crs", "<"+q.CRS.URI()+">")
	usage.Served(c.w, usage.Layer, col.LayerID, usage.WFS, usage.Amounts{Features: int64(fc.NumberReturned)})
	return c.send(of.TypeGeoJSON, fc, func() of.HTMLPage {
		t := &of.HTMLTable{Head: append([]string{"id"}, col.FieldNames()...)}
		for _, f := range fc.Features {
			_, cells := of.PropertyCells(f.Properties)
			t.Rows = append(t.Rows, of.HTMLRow{
				Href:  c.base + "/collections/" + url.PathEscape(col.ID) + "/items/" + strconv.FormatInt(f.ID, 10) + "?f=html",
				Cells: append([]string{strconv.FormatInt(f.ID, 10)}, cells[:min(len(cells), len(col.Fields))]...)})
		}
		desc := strconv.Itoa(fc.NumberReturned) + " features"
		if fc.NumberMatched != nil {
			desc += " of " + strconv.FormatInt(*fc.NumberMatched, 10)
		}
		htmlLinks := links
		if page.Next != nil {
			q := linkQuery(c.r)
			q.Set("f", "html")
			q.Set("cursor", page.Next.String())
			htmlLinks = append(htmlLinks[:len(htmlLinks):len(htmlLinks)], of.Link{Rel: "next", Type: of.TypeHTML, Title: "Next page as HTML",
				Href: c.base + "/collections/" + url.PathEscape(col.ID) + "/items?" + q.Encode()})
		}
		return of.HTMLPage{Title: col.Title, Description: desc, Links: htmlLinks, Table: t}
	})
}

func (h *Features) item(c *call) error {
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	raw := chi.URLParam(c.r, "feature")
	fid, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return notFound("There is no feature " + strconv.Quote(raw) + " in " + col.ID + ".")
	}
	crs := of.CRS{}
	if s := c.r.URL.Query().Get("crs"); s != "" {
		if crs, err = of.ParseCRS(s); err != nil {
			return of.CRSProblem("crs", s, err)
		}
	}
	it, err := h.s.Item(c.r.Context(), col, fid)
	if err != nil {
		return err
	}
	if it == nil {
		return notFound("There is no feature " + strconv.Quote(raw) + " in " + col.ID + ".")
	}
	tr, err := transformer(crs)
	if err != nil {
		return err
	}
	if tr != nil {
		defer tr.Close()
	}
	f, err := of.NewFeature(*it, col.FieldNames(), tr)
	if of.IsTransformError(err) {
		return &of.Problem{Status: http.StatusBadRequest, Code: "InvalidParameterValue",
			Description: "the feature cannot be given in the requested CRS"}
	}
	if err != nil {
		return err
	}
	f.Links = of.ItemLinks(col, c.base, fid, linkQuery(c.r))
	c.w.Header().Set("Content-Crs", "<"+crs.URI()+">")
	usage.Served(c.w, usage.Layer, col.LayerID, usage.WFS, usage.Amounts{Features: 1})
	return c.send(of.TypeGeoJSON, f, func() of.HTMLPage {
		names, cells := of.PropertyCells(f.Properties)
		t := &of.HTMLTable{Head: []string{"Property", "Value"}}
		for i := range names {
			t.Rows = append(t.Rows, of.HTMLRow{Cells: []string{names[i], cells[i]}})
		}
		t.Rows = append(t.Rows, of.HTMLRow{Cells: []string{"geometry", string(f.Geometry)}})
		return of.HTMLPage{Title: col.Title + " — feature " + raw, Links: f.Links, Table: t}
	})
}

func (h *Features) queryables(c *call) error {
	col, err := h.lookup(c)
	if err != nil {
		return err
	}
	doc := of.Queryables(col, c.base)
	return c.send(of.TypeSchema, doc, func() of.HTMLPage {
		t := &of.HTMLTable{Head: []string{"Queryable", "Type"}}
		for _, f := range col.Fields {
			t.Rows = append(t.Rows, of.HTMLRow{Cells: []string{f.Name, f.Type}})
		}
		if !col.Table {
			t.Rows = append(t.Rows, of.HTMLRow{Cells: []string{"geometry", "geometry"}})
		}
		return of.HTMLPage{Title: col.Title + " — queryables", Table: t}
	})
}
