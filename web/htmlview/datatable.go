package htmlview

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/datatable"
)

// WithDataTable makes layer and table pages link their data table
// (/layers/{id}/data/, /tables/{id}/data/) when the caller may use it,
// and serves those pages over tables.
func (v *Views) WithDataTable(tables *datatable.Service) *Views {
	v.tables = tables
	return v
}

// tableJS is the script of the table page: it reads the data-table JSON
// API (no build step, no outside asset).
//
//go:embed assets/datatable.js
var tableJS []byte

// tableJSPath serves tableJS, versioned by its content.
const tableJSPath = "/htmlview/datatable.js"

var tableJSVersion = func() string {
	sum := sha256.Sum256(tableJS)
	return hex.EncodeToString(sum[:8])
}()

// tableCSP lets the page run its own script and read the API of its own
// origin, nothing else.
const tableCSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'"

// tablePage is what the table page template shows.
type tablePage struct {
	Kind, Title, Back, API, Script string
	Columns                        []datatable.Column
	Limit                          int
}

var tableTmpl = template.Must(template.ParseFS(templates, "templates/datatable.html"))

func (v *Views) dataTableRoutes(r chi.Router) {
	if v.tables == nil {
		return
	}
	for _, kind := range []string{"layers", "tables"} {
		h := v.tablePage(kind)
		r.Get("/"+kind+"/{id:[0-9]+}/data", h)
		r.Get("/"+kind+"/{id:[0-9]+}/data/", h)
	}
	r.Get(tableJSPath, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		_, _ = w.Write(tableJS)
	})
}

// addDataTable links the table page from a layer's or table's page when
// the caller may use it.
func (v *Views) addDataTable(ctx context.Context, p *Page, kind string, id int) error {
	if v.tables == nil {
		return nil
	}
	_, err := v.tables.PageTable(ctx, auth.FromContext(ctx), id)
	if errors.Is(err, datatable.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	p.DataTable = "/" + kind + "/" + strconv.Itoa(id) + "/data/"
	return nil
}

// tablePage serves /{kind}/{id}/data/: the table of a published layer or
// table the caller may use the data table of, else the 404 page.
func (v *Views) tablePage(kind string) http.HandlerFunc {
	notFound := v.serve(func(*http.Request) (*Page, error) { return nil, errNotFound })
	return func(w http.ResponseWriter, r *http.Request) {
		n, err := id(r)
		if err != nil {
			notFound(w, r)
			return
		}
		ctx := r.Context()
		t, err := v.tables.PageTable(ctx, auth.FromContext(ctx), n)
		if errors.Is(err, datatable.ErrNotFound) || err == nil && t.IsTable != (kind == "tables") {
			notFound(w, r)
			return
		}
		if err != nil {
			v.serve(func(*http.Request) (*Page, error) { return nil, err })(w, r)
			return
		}
		p := tablePage{Kind: "Layer", Title: t.Title, Back: "/" + kind + "/" + strconv.Itoa(n) + "/",
			API: "/services/data-table/v1/layer=" + strconv.Itoa(n), Script: tableJSPath + "?v=" + tableJSVersion,
			Columns: t.Columns, Limit: 25}
		if t.IsTable {
			p.Kind = "Table"
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", tableCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "private, no-cache")
		if err := tableTmpl.ExecuteTemplate(w, "datatable.html", p); err != nil {
			v.logger.ErrorContext(ctx, "writing a page failed", "path", r.URL.Path, "err", err)
		}
	}
}

var errNotFound = apperr.New(apperr.NotFound, "Not found.")
