// Package mappreview puts a map of a published layer or set on its HTML
// page: MapLibre GL JS over a plain background, drawing the vector tiles of
// /services/tiles/v1/ styled by geometry type (polygons filled, lines
// stroked, points as circles), fitted to the data's extent, with a
// feature's attributes in a popup on click. Grid and raster layers (and a
// set's grid and raster members, under its vector ones) are drawn from
// their PNG tiles (internal/rastertiles), with no popup.
//
// Every file the map needs is embedded in the binary (MapLibre's
// JavaScript and stylesheet, vendored from npm as listed in
// assets/update.sh, and the small preview.js that starts the map), so the
// preview works offline. The style has no glyphs, sprites or other sources:
// the map draws no text, and loads nothing but tiles from its own origin.
//
// A map is shown only when the caller may use the tile services of the
// layer or set (For reads the same rule as the tile routes, through the
// lookups of vectortiles and rastertiles). The browser
// fetches the tiles from the same origin, so the session cookie that
// authenticated the page authenticates them too; no key is written into
// the page.
package mappreview

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Path is where the assets are served: Path+"/assets/{name}".
const Path = "/mappreview"

// ContentSecurityPolicy is the policy of a page that shows a map: scripts
// and stylesheets from the origin only; MapLibre starts its worker from a
// blob: URL (child-src for browsers without worker-src), its stylesheet's
// icons are data: URLs and it decodes images through blob: URLs; tiles
// come from the origin. Inline styles stay allowed for the page's own
// <style>. No 'unsafe-eval': MapLibre needs none.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src data: blob:; worker-src blob:; child-src blob:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Colours of the preview style, also read by tests.
const (
	Background  = "#f4f2ec"
	FillColor   = "#d9480f"
	FillOpacity = 0.6
	LineColor   = "#1c5fb8"
	PointColor  = "#2b8a3e"
)

const assetCacheControl = "public, max-age=31536000, immutable"

//go:embed preview.js assets/maplibre-gl.js assets/maplibre-gl.css assets/LICENSE.txt assets/SHA256SUMS
var files embed.FS

var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".txt": "text/plain; charset=utf-8",
}

type asset struct {
	body        []byte
	contentType string
	etag        string
}

// assets are the files served under Path+"/assets/", by base name.
var assets = loadAssets()

func loadAssets() map[string]asset {
	out := map[string]asset{}
	for _, name := range []string{"preview.js", "assets/maplibre-gl.js", "assets/maplibre-gl.css", "assets/LICENSE.txt"} {
		body, err := fs.ReadFile(files, name)
		if err != nil {
			panic("mappreview: " + err.Error())
		}
		sum := sha256.Sum256(body)
		out[path.Base(name)] = asset{body: body, contentType: contentTypes[path.Ext(name)],
			etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return out
}

// AssetURL is the URL of an embedded asset, versioned by its content so
// that the long cache lifetime never serves a stale file after an
// upgrade; "" for an unknown name.
func AssetURL(name string) string {
	a, ok := assets[name]
	if !ok {
		return ""
	}
	return Path + "/assets/" + name + "?v=" + strings.Trim(a.etag, `"`)
}

// Handler serves the assets; mount it at Path+"/*" without stripping the
// prefix.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, Path+"/assets/")
		a, found := assets[name]
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("Cache-Control", assetCacheControl)
		h.Set("ETag", a.etag)
		h.Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
	})
}
