package ogc

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/gzipbody"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/usage"
	"github.com/geopub/geopub/internal/vectortiles"
)

// auth.ScopeTiles is the token scope of the tile services.

// TilesPath is where vector tiles are served (and image tiles, see
// RasterTiles):
//
//	/services/tiles/v1/layer={id}/{z}/{x}/{y}.pbf   one layer's MVT (.mvt too)
//	/services/tiles/v1/layer={id}/tile.json         its TileJSON 3.0.0
//	/services/tiles/v1/set={id}/{z}/{x}/{y}.pbf     a set's members, one MVT layer each
//	/services/tiles/v1/set={id}/tile.json
//
// and the same under /services;key={token}/tiles/v1/... (see PathKey).
const TilesPath = "/services/tiles/v1"

// Tiles serves vector tiles and TileJSON.
type Tiles struct {
	svc     *vectortiles.Service
	baseURL string
	logger  *slog.Logger
	// raster serves the image tiles on the same paths (.png, .jpg,
	// .jpeg, .webp), when set.
	raster *RasterTiles
}

// WithRaster hands the image extensions of the tile paths to rt.
func (t *Tiles) WithRaster(rt *RasterTiles) *Tiles {
	t.raster = rt
	return t
}

// NewTiles returns the tile front door over svc; baseURL, when set, is the
// public origin of TileJSON's tile URLs (else the request's own).
func NewTiles(svc *vectortiles.Service, baseURL string, logger *slog.Logger) *Tiles {
	return &Tiles{svc: svc, baseURL: strings.TrimRight(baseURL, "/"), logger: logger}
}

// Mount adds the tile routes to r, which must run the authentication
// middleware that accepts ?key= (and the root router PathKey).
func (t *Tiles) Mount(r chi.Router) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.MethodFunc(m, TilesPath+"/{owner}/tile.json", t.tileJSON)
		r.MethodFunc(m, TilesPath+"/{owner}/{z}/{x}/{y}", t.tile)
	}
	r.Options(TilesPath+"/{owner}/tile.json", preflight)
	r.Options(TilesPath+"/{owner}/{z}/{x}/{y}", preflight)
}

// Tiles and TileJSON may be read by maps on any origin (MapLibre,
// OpenLayers in other sites' pages): Access-Control-Allow-Origin: *.
// Browsers send no cookies with such requests unless the page asks, and
// then refuse the answer under "*": a session never reaches another
// origin's script; keys are given by the page itself. Scripts may read
// the rate-limit headers (internal/ratelimit) to slow down in time.
func allowAnyOrigin(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "ETag, RateLimit, RateLimit-Policy, Retry-After")
}

// preflight answers CORS preflight requests (a page sending the key in
// the Authorization header, or If-None-Match).
func preflight(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	allowAnyOrigin(h)
	h.Set("Access-Control-Allow-Methods", "GET, HEAD")
	h.Set("Access-Control-Allow-Headers", "Authorization, If-None-Match")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

var acceptedScopes = []string{auth.ScopeTiles}

// owner parses "layer=N" or "set=N".
func owner(s string) (kind string, id int, ok bool) {
	kind, num, found := strings.Cut(s, "=")
	if !found || (kind != "layer" && kind != "set") {
		return "", 0, false
	}
	id, err := strconv.Atoi(num)
	if err != nil || id <= 0 || strings.TrimLeft(num, "0123456789") != "" {
		return "", 0, false
	}
	return kind, id, true
}

// start checks the owner segment and the caller's scope; ok is false when
// it already answered.
func (t *Tiles) start(w http.ResponseWriter, r *http.Request) (kind string, id int, ok bool) {
	return startTiles(w, r)
}

// startTiles checks a tile path's owner segment and the caller's scope;
// ok is false when it already answered.
func startTiles(w http.ResponseWriter, r *http.Request) (kind string, id int, ok bool) {
	auth.SetAcceptedScopes(w.Header(), acceptedScopes)
	allowAnyOrigin(w.Header())
	kind, id, ok = owner(chi.URLParam(r, "owner"))
	if !ok {
		fail(w, http.StatusNotFound, "Not found: tiles are at "+TilesPath+"/layer={id}/... or "+TilesPath+"/set={id}/...")
		return "", 0, false
	}
	if p := auth.FromContext(r.Context()); !p.HasScope(auth.ScopeTiles) {
		fail(w, http.StatusUnauthorized, "This API key lacks the tiles scope.")
		return "", 0, false
	}
	return kind, id, true
}

func (t *Tiles) tile(w http.ResponseWriter, r *http.Request) {
	if _, ext, _ := strings.Cut(chi.URLParam(r, "y"), "."); t.raster != nil {
		if _, ok := rastertiles.ParseFormat(ext); ok {
			t.raster.tile(w, r)
			return
		}
	}
	kind, id, ok := t.start(w, r)
	if !ok {
		return
	}
	y, ext, _ := strings.Cut(chi.URLParam(r, "y"), ".")
	if ext != "pbf" && ext != "mvt" {
		fail(w, http.StatusBadRequest, "A tile's path ends in {z}/{x}/{y}.pbf or .mvt (vector tiles), or .png, .jpg, .jpeg or .webp (images).")
		return
	}
	tile, err := vectortiles.ParseTile(chi.URLParam(r, "z"), chi.URLParam(r, "x"), y)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	p := auth.FromContext(ctx)
	v, err := t.svc.Viewer(ctx, p)
	if err != nil {
		t.internal(w, r, err)
		return
	}
	var a *vectortiles.Answer
	if kind == "layer" {
		a, err = t.svc.LayerTile(ctx, v, id, tile)
	} else {
		a, err = t.svc.SetTile(ctx, v, id, tile)
	}
	if err != nil {
		t.refuse(w, r, kind, id, err)
		return
	}
	gz := gzipbody.Accepted(r) && len(a.Body) >= gzipbody.MinSize
	etag := `"` + a.ETag
	if gz {
		etag += "-gz"
	}
	etag += `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Vary", "Accept-Encoding")
	h.Set("Cache-Control", cacheControl(p))
	if notModified(r, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	// An empty tile is a 200 of zero bytes, as any other tile: GDAL
	// refuses a 204.
	h.Set("Content-Type", "application/vnd.mapbox-vector-tile")
	body := a.Body
	if gz {
		body = a.Gzipped()
		h.Set("Content-Encoding", "gzip")
	}
	usage.Served(w, usage.KindOf(kind), id, usage.Tiles, usage.Amounts{Tiles: 1})
	onewrite.Send(w, r, http.StatusOK, body)
}

func (t *Tiles) tileJSON(w http.ResponseWriter, r *http.Request) {
	kind, id, ok := t.start(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	p := auth.FromContext(ctx)
	v, err := t.svc.Viewer(ctx, p)
	if err != nil {
		t.internal(w, r, err)
		return
	}
	tiles := t.tilesURL(r, kind, id)
	var tj *vectortiles.TileJSON
	if kind == "layer" {
		tj, err = t.svc.LayerTileJSON(ctx, v, id, tiles)
	} else {
		tj, err = t.svc.SetTileJSON(ctx, v, id, tiles)
	}
	if err != nil {
		t.refuse(w, r, kind, id, err)
		return
	}
	body, err := json.Marshal(tj)
	if err != nil {
		t.internal(w, r, err)
		return
	}
	// The document names the caller's key and the request's origin: its
	// validator covers both.
	writeDoc(w, r, p, "application/json", tj.ETag+"-"+strconv.FormatUint(hashString(tiles), 36), body)
}

// tilesURL is the tile URL template for TileJSON: the key travels as the
// request carried it (in the path or the query); a key sent in the
// Authorization header is not written into the document.
func (t *Tiles) tilesURL(r *http.Request, kind string, id int) string {
	return keyedURL(r, t.baseURL, "/tiles/v1/"+kind+"="+strconv.Itoa(id)+"/{z}/{x}/{y}.pbf", false)
}

// keyedURL is origin (else the request's scheme and host) + /services +
// rest, carrying the key as the request did: in the path or the query
// (always the path when pathForm is set); a key sent in the
// Authorization header is not written into documents.
func keyedURL(r *http.Request, origin, rest string, pathForm bool) string {
	if origin == "" {
		origin = forwarded.Origin(r)
	}
	key, fromQuery := queryKey(r)
	if _, header := auth.KeyFromAuthorization(r.Header.Get("Authorization")); header || !fromQuery {
		return origin + "/services" + rest
	}
	if pathForm || usedPathKey(r) {
		return origin + "/services;key=" + url.PathEscape(key) + rest
	}
	return origin + "/services" + rest + "?key=" + url.QueryEscape(key)
}

// withQuery appends a query parameter to a URL that may have a query.
func withQuery(u, param string) string {
	if strings.Contains(u, "?") {
		return u + "&" + param
	}
	return u + "?" + param
}

// queryKey is the request's first key query parameter.
func queryKey(r *http.Request) (string, bool) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || !q.Has("key") {
		return "", false
	}
	return q.Get("key"), true
}

// refuse answers a tile or TileJSON request that could not be served.
func (t *Tiles) refuse(w http.ResponseWriter, r *http.Request, kind string, id int, err error) {
	refuseTiles(w, r, t.logger, kind, id, err, vectortiles.ErrNotFound, "vector tiles")
}

func (t *Tiles) internal(w http.ResponseWriter, r *http.Request, err error) {
	internalError(w, r, t.logger, "vector tile failed", err)
}

// refuseTiles answers a tile request that could not be served: an
// unknown, unpublished or forbidden layer or set (err is notFound) is 404
// alike, or 401 for anonymous callers (who may see more once
// authenticated); any other error is internal.
func refuseTiles(w http.ResponseWriter, r *http.Request, logger *slog.Logger, kind string, id int, err, notFound error, what string) {
	if !errors.Is(err, notFound) {
		internalError(w, r, logger, strings.TrimSuffix(what, "s")+" failed", err)
		return
	}
	if !auth.FromContext(r.Context()).Authenticated() {
		fail(w, http.StatusUnauthorized, "Authentication credentials were not provided.")
		return
	}
	name := "Layer"
	if kind == "set" {
		name = "Set"
	}
	fail(w, http.StatusNotFound, name+" "+strconv.Itoa(id)+" was not found or is not available as "+what+".")
}

// internalError logs err and answers 500 without details, unless the
// service declined the work (unavailable).
func internalError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, msg string, err error) {
	if e, ok := unavailable(w, err); ok {
		fail(w, e.Code.HTTPStatus(), e.Message)
		return
	}
	logger.ErrorContext(r.Context(), msg, "path", r.URL.Path, "err", err)
	fail(w, http.StatusInternalServerError, "Internal error.")
}

// fail writes {"detail": msg}, the REST API's error shape.
func fail(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"detail": msg})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("ETag")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// cacheControl lets clients keep tiles but revalidate each use (the URL
// does not change when a publish does; the ETag does): shared caches only
// for anonymous requests.
func cacheControl(p auth.Principal) string {
	if p.Authenticated() {
		return "private, no-cache"
	}
	return "public, no-cache"
}

// notModified reports whether If-None-Match names etag (or is *).
func notModified(r *http.Request, etag string) bool {
	inm := r.Header.Get("If-None-Match")
	if inm == "" {
		return false
	}
	for _, c := range strings.Split(inm, ",") {
		c = strings.TrimSpace(c)
		c = strings.TrimPrefix(c, "W/")
		if c == etag || c == "*" {
			return true
		}
	}
	return false
}

func hashString(s string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
