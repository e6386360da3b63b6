// Package explorer serves an offline GraphiQL explorer for the Geopub GraphQL
// endpoint.
//
// Every file the page needs (GraphiQL, React, ReactDOM and a small bootstrap
// script) is embedded in the binary, so the explorer works on a machine with
// no internet access. The page's Content-Security-Policy allows loads from the
// same origin only, so an accidental reference to another host fails loudly
// in the browser instead of leaking requests. The vendored files and their npm
// versions are listed in assets/update.sh.
package explorer

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Path is where the explorer is mounted. The page is served at Path and
// Path+"/", and the assets under Path+"/assets/".
const Path = "/graphiql"

// ContentSecurityPolicy is the policy sent with the page. Styles allow
// 'unsafe-inline' because GraphiQL's dialogs inject <style> elements; the
// embedded stylesheet uses data: URLs for its fonts and icons.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; " +
	"style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'self'"

const assetCacheControl = "public, max-age=31536000, immutable"

//go:embed page.html page.css init.js assets/*.js assets/*.css
var files embed.FS

var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
}

type asset struct {
	body        []byte
	contentType string
	etag        string
}

type handler struct {
	page   []byte
	assets map[string]asset
}

// Handler returns the explorer handler. endpoint is the same-origin path of
// the GraphQL endpoint, such as "/graphql"; it panics on anything else. Mount
// the handler at Path and Path+"/*" without stripping the prefix.
func Handler(endpoint string) http.Handler {
	if !strings.HasPrefix(endpoint, "/") || strings.HasPrefix(endpoint, "//") {
		panic("graphiql: endpoint must be a same-origin path such as /graphql, got " + endpoint)
	}
	h := &handler{assets: loadAssets()}
	tmpl := template.Must(template.ParseFS(files, "page.html"))
	var buf bytes.Buffer
	err := tmpl.Execute(&buf, pageData{Endpoint: endpoint, assets: h.assets})
	if err != nil {
		panic("graphiql: rendering the page: " + err.Error())
	}
	h.page = buf.Bytes()
	return h
}

// loadAssets reads the embedded files served under Path+"/assets/".
func loadAssets() map[string]asset {
	out := map[string]asset{}
	add := func(name string) {
		body, err := fs.ReadFile(files, name)
		if err != nil {
			panic("graphiql: " + err.Error())
		}
		sum := sha256.Sum256(body)
		out[path.Base(name)] = asset{
			body:        body,
			contentType: contentTypes[path.Ext(name)],
			etag:        `"` + hex.EncodeToString(sum[:8]) + `"`,
		}
	}
	add("page.css")
	add("init.js")
	vendored, _ := fs.Glob(files, "assets/*")
	for _, name := range vendored {
		add(name)
	}
	return out
}

type pageData struct {
	Endpoint string
	assets   map[string]asset
}

// Asset returns the URL of an embedded asset, versioned by its content so that
// the long cache lifetime never serves a stale file after an upgrade.
func (d pageData) Asset(name string) (string, error) {
	a, ok := d.assets[name]
	if !ok {
		return "", fs.ErrNotExist
	}
	return Path + "/assets/" + name + "?v=" + strings.Trim(a.etag, `"`), nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	switch {
	case p == Path || p == Path+"/":
		hd := w.Header()
		hd.Set("Content-Type", "text/html; charset=utf-8")
		hd.Set("Content-Security-Policy", ContentSecurityPolicy)
		hd.Set("Cache-Control", "no-cache")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		if r.Method == http.MethodGet {
			_, _ = w.Write(h.page)
		}
	case strings.HasPrefix(p, Path+"/assets/"):
		a, ok := h.assets[strings.TrimPrefix(p, Path+"/assets/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		hd := w.Header()
		hd.Set("Content-Type", a.contentType)
		hd.Set("Cache-Control", assetCacheControl)
		hd.Set("ETag", a.etag)
		hd.Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
	default:
		http.NotFound(w, r)
	}
}
