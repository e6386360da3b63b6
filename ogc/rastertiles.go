package ogc

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/usage"
	"github.com/geopub/geopub/internal/vectortiles"
)

// RasterTiles serves image tiles and their TileJSON beside the vector
// tiles (TilesPath):
//
//	/services/tiles/v1/layer={id}/{z}/{x}/{y}.png   (.jpg, .jpeg, .webp)
//	/services/tiles/v1/layer={id}/raster.json       TileJSON 3.0.0 of the PNG tiles
//	/services/tiles/v1/set={id}/{z}/{x}/{y}.png     the members composited
//	/services/tiles/v1/set={id}/raster.json
//
// with an optional style query parameter (style=auto,color=RRGGBB), and
// the same under /services;key={token}/tiles/v1/... (see PathKey).
type RasterTiles struct {
	svc     *rastertiles.Service
	baseURL string
	logger  *slog.Logger
}

// NewRasterTiles returns the raster tile front door over svc; baseURL,
// when set, is the public origin of the URLs it writes. Its tile routes
// are reached through Tiles.WithRaster.
func NewRasterTiles(svc *rastertiles.Service, baseURL string, logger *slog.Logger) *RasterTiles {
	return &RasterTiles{svc: svc, baseURL: strings.TrimRight(baseURL, "/"), logger: logger}
}

// Mount adds the raster TileJSON routes and WMTS (see WMTSPath) to r,
// which must run the authentication middleware that accepts ?key=.
func (t *RasterTiles) Mount(r chi.Router) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.MethodFunc(m, TilesPath+"/{owner}/raster.json", t.tileJSON)
		r.MethodFunc(m, WMTSPath+"/{kind}/{id}/WMTSCapabilities.xml", t.capabilities)
		r.MethodFunc(m, WMTSPath+"/{kind}/{id}", t.kvp)
		r.MethodFunc(m, WMTSPath+"/{kind}/{id}/", t.kvp)
	}
	r.Options(TilesPath+"/{owner}/raster.json", preflight)
	r.Options(WMTSPath+"/{kind}/{id}/WMTSCapabilities.xml", preflight)
}

// tile serves {z}/{x}/{y}.{png,jpg,jpeg,webp}.
func (t *RasterTiles) tile(w http.ResponseWriter, r *http.Request) {
	kind, id, ok := startTiles(w, r)
	if !ok {
		return
	}
	y, ext, _ := strings.Cut(chi.URLParam(r, "y"), ".")
	f, _ := rastertiles.ParseFormat(ext)
	tile, err := vectortiles.ParseTile(chi.URLParam(r, "z"), chi.URLParam(r, "x"), y)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	st, err := rastertiles.ParseStyle(r.URL.Query().Get("style"))
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	t.serve(w, r, kind, id, tile, f, st, usage.Tiles)
}

// serve answers one image tile, the caller's scope already checked;
// service is the one its usage counts under.
func (t *RasterTiles) serve(w http.ResponseWriter, r *http.Request, kind string, id int, tile vectortiles.Tile, f rastertiles.Format, st rastertiles.Style, service usage.Service) {
	ctx := r.Context()
	p := auth.FromContext(ctx)
	v, err := t.svc.Viewer(ctx, p)
	if err != nil {
		t.internal(w, r, err)
		return
	}
	var a *rastertiles.Answer
	if kind == "layer" {
		a, err = t.svc.LayerTile(ctx, v, id, tile, f, st)
	} else {
		a, err = t.svc.SetTile(ctx, v, id, tile, f, st)
	}
	if err != nil {
		t.refuse(w, r, kind, id, err)
		return
	}
	etag := `"` + a.ETag + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl(p))
	if notModified(r, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", f.ContentType())
	usage.Served(w, usage.KindOf(kind), id, service, usage.Amounts{Tiles: 1})
	onewrite.Send(w, r, http.StatusOK, a.Body)
}

func (t *RasterTiles) tileJSON(w http.ResponseWriter, r *http.Request) {
	kind, id, ok := startTiles(w, r)
	if !ok {
		return
	}
	src, p, ok := t.source(w, r, kind, id, rastertiles.ServiceTileJSON)
	if !ok {
		return
	}
	tiles := keyedURL(r, t.baseURL, "/tiles/v1/"+kind+"="+strconv.Itoa(id)+"/{z}/{x}/{y}.png", false)
	body, err := json.Marshal(rastertiles.TileJSONOf(src, tiles, rastertiles.PNG))
	if err != nil {
		t.internal(w, r, err)
		return
	}
	writeDoc(w, r, p, "application/json", "rtj-"+src.ETag+"-"+strconv.FormatUint(hashString(tiles), 36), body)
}

// source describes a layer's or set's tiles if the caller may use them
// through svc; ok is false when it already answered.
func (t *RasterTiles) source(w http.ResponseWriter, r *http.Request, kind string, id int, svc string) (*rastertiles.Source, auth.Principal, bool) {
	ctx := r.Context()
	p := auth.FromContext(ctx)
	v, err := t.svc.Viewer(ctx, p)
	if err != nil {
		t.internal(w, r, err)
		return nil, p, false
	}
	var src *rastertiles.Source
	if kind == "layer" {
		src, err = t.svc.LayerSource(ctx, v, id, svc)
	} else {
		src, err = t.svc.SetSource(ctx, v, id, svc)
	}
	if err != nil {
		t.refuse(w, r, kind, id, err)
		return nil, p, false
	}
	return src, p, true
}

// writeDoc writes a document with its validator (which covers the URLs
// it names: the caller's key and the request's origin).
func writeDoc(w http.ResponseWriter, r *http.Request, p auth.Principal, contentType, etag string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cacheControl(p))
	etag = `"` + etag + `"`
	h.Set("ETag", etag)
	if notModified(r, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// refuse answers a request for tiles that could not be served.
func (t *RasterTiles) refuse(w http.ResponseWriter, r *http.Request, kind string, id int, err error) {
	refuseTiles(w, r, t.logger, kind, id, err, rastertiles.ErrNotFound, "raster tiles")
}

func (t *RasterTiles) internal(w http.ResponseWriter, r *http.Request, err error) {
	internalError(w, r, t.logger, "raster tile failed", err)
}
