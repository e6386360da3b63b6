package apidoc

import (
	"bytes"
	"net/http"
	"path"
	"strings"
	"time"
)

// pageCSP allows the reference page nothing but its own inline style.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

// JSONHandler serves the document as application/json. Anyone may read it.
func (d *Document) JSONHandler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		http.ServeContent(w, r, "openapi.json", time.Time{}, bytes.NewReader(d.JSON))
	}
}

// HTMLHandler serves the reference page rendered from the document. Its
// address ends in a slash (a request without one is redirected), so that
// its link to the document, ../openapi.json, holds under any base path.
func (d *Document) HTMLHandler() (http.HandlerFunc, error) {
	page, err := d.renderHTML()
	if err != nil {
		return nil, err
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, path.Base(r.URL.Path)+"/", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", pageCSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "public, max-age=300")
		http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(page))
	}, nil
}
