package ogc

import (
	"context"
	"errors"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/geoservices"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/vectortiles"
)

// The services MapServer and VectorTileServer go through.
const (
	serviceEsriMap    = "esri-map"
	serviceVectorEsri = "vector-tile-arcgis"
)

// mapServices is where a dataset's map and vector tile services are.
const mapServices = ArcGISPath + "/services/{name}"

// mountMapServer adds MapServer's root, export and cached tiles, and
// VectorTileServer.
func (a *ArcGIS) mountMapServer(r chi.Router) {
	routes := map[string]http.HandlerFunc{
		"/MapServer":                                   a.mapServer,
		"/MapServer/export":                            a.export,
		"/MapServer/tile/{z}/{y}/{x}":                  a.mapTile,
		"/VectorTileServer":                            a.vectorTileServer,
		"/VectorTileServer/tile/{z}/{y}/{x}":           a.vectorTile,
		"/VectorTileServer/resources/styles/root.json": a.vectorStyle,
	}
	for p, h := range routes {
		r.Get(mapServices+p, h)
		r.Head(mapServices+p, h)
		r.Options(mapServices+p, preflight)
	}
}

// mapTarget is what a map or vector tile request is about: the layers
// it may draw (each with its map layer id), and the validator of their
// versions.
type mapTarget struct {
	name     geoservices.ServiceName
	title    string
	layers   []*vectortiles.Layer
	ids      []int
	versions string
	p        auth.Principal
}

// mapStart checks the scope and finds the dataset the caller may use
// through svc (MapServer: layers and sets; VectorTileServer: vector
// layers only); ok is false when it already answered.
func (a *ArcGIS) mapStart(w http.ResponseWriter, r *http.Request, scope, svc string) (*mapTarget, bool) {
	h := w.Header()
	auth.SetAcceptedScopes(h, []string{scope})
	allowAnyOrigin(h)
	ctx := r.Context()
	p := auth.FromContext(ctx)
	if !p.HasScope(scope) {
		// 401 naming the scope, as every service answers it, on
		// every path.
		writeArcGISError(w, &geoservices.Error{Code: http.StatusUnauthorized, Message: "This token lacks the " + scope + " scope."})
		return nil, false
	}
	name, ok := geoservices.ParseServiceName(chi.URLParam(r, "name"))
	if !ok || (svc == serviceVectorEsri && name.Kind != geoservices.KindLayer) {
		writeArcGISError(w, geoservices.NotFound("Service not found: map services are layer_{id}/MapServer and set_{id}/MapServer, vector tile services layer_{id}/VectorTileServer."))
		return nil, false
	}
	v, err := a.tiles.Viewer(ctx, p)
	if err != nil {
		a.mapInternal(w, r, err)
		return nil, false
	}
	t := &mapTarget{name: name, p: p}
	if name.Kind == geoservices.KindLayer {
		var l *vectortiles.Layer
		l, err = a.tiles.UsableLayer(ctx, v, name.ID, svc)
		if err == nil && svc == serviceVectorEsri && l.Kind != layer.KindVector {
			err = vectortiles.ErrNotFound
		}
		if err == nil {
			t.title, t.layers, t.ids, t.versions = l.Title, []*vectortiles.Layer{l}, []int{0}, "v"+strconv.Itoa(l.VersionID)
		}
	} else {
		var set *vectortiles.Set
		var ls []*vectortiles.Layer
		set, ls, err = a.tiles.UsableSet(ctx, v, name.ID, []string{svc}, []string{svc})
		if err == nil {
			t.title, t.layers, t.versions, t.ids = set.Title, ls, set.ETag, mapLayerIDs(ls)
		}
	}
	if err != nil {
		a.mapRefuse(w, r, name, err)
		return nil, false
	}
	return t, true
}

// mapLayerIDs numbers a set's map layers as its FeatureServer and
// MapServer layer resources do (geoservices.Service.Layers): the vector
// members the caller may use by their index in set order, then the grid
// and raster members (which have no layer resource).
func mapLayerIDs(ls []*vectortiles.Layer) []int {
	ids := make([]int, len(ls))
	n := 0
	for _, vector := range []bool{true, false} {
		for i, l := range ls {
			if (l.Kind == layer.KindVector) == vector {
				ids[i] = n
				n++
			}
		}
	}
	return ids
}

// mapRefuse answers a dataset the caller may not use as the tile
// services do: 401 to anonymous callers (a key may help), else 404.
func (a *ArcGIS) mapRefuse(w http.ResponseWriter, r *http.Request, name geoservices.ServiceName, err error) {
	if !errors.Is(err, vectortiles.ErrNotFound) && !errors.Is(err, rastertiles.ErrNotFound) {
		a.mapInternal(w, r, err)
		return
	}
	if !auth.FromContext(r.Context()).Authenticated() {
		writeArcGISError(w, &geoservices.Error{Code: http.StatusUnauthorized, Message: "Token required: authentication credentials were not provided."})
		return
	}
	writeArcGISError(w, geoservices.NotFound("Service "+name.String()+" not found or not available."))
}

// mapInternal logs err and answers a 500 (or the service's own refusal
// when it declined the work).
func (a *ArcGIS) mapInternal(w http.ResponseWriter, r *http.Request, err error) {
	if e, ok := unavailable(w, err); ok {
		writeArcGISError(w, &geoservices.Error{Code: e.Code.HTTPStatus(), Message: e.Message})
		return
	}
	a.logger.ErrorContext(r.Context(), "arcgis map service failed", "path", r.URL.Path, "err", err)
	writeArcGISError(w, &geoservices.Error{Code: http.StatusInternalServerError, Message: "Internal error."})
}

// bounds is the union of ls's boxes in degrees; ok is false when none has
// one.
func (a *ArcGIS) bounds(ctx context.Context, ls []*vectortiles.Layer) (box [4]float64, ok bool, err error) {
	for _, l := range ls {
		b, has, err := a.tiles.Bounds(ctx, l)
		if err != nil {
			return box, false, err
		}
		if !has {
			continue
		}
		if !ok {
			box, ok = b, true
			continue
		}
		box = [4]float64{math.Min(box[0], b[0]), math.Min(box[1], b[1]), math.Max(box[2], b[2]), math.Max(box[3], b[3])}
	}
	return box, ok, nil
}

// mapServer answers {name}/MapServer.
func (a *ArcGIS) mapServer(w http.ResponseWriter, r *http.Request) {
	t, ok := a.mapStart(w, r, auth.ScopeWMS, serviceEsriMap)
	if !ok {
		return
	}
	box, has, err := a.bounds(r.Context(), t.layers)
	if err != nil {
		a.mapInternal(w, r, err)
		return
	}
	var layers []geoservices.MapLayer
	for i, l := range t.layers {
		layers = append(layers, geoservices.NewMapLayer(t.ids[i], l.Title, l.GeometryType, l.Kind != layer.KindVector))
	}
	w.Header().Set("Cache-Control", cacheControl(t.p))
	writeArcGISJSON(w, r, geoservices.NewMapServer(t.title, layers, box, has, rastertiles.MaxZoom))
}

// export answers {name}/MapServer/export: a picture of the layers shown
// in a box, or (f=json) where it is.
func (a *ArcGIS) export(w http.ResponseWriter, r *http.Request) {
	t, ok := a.mapStart(w, r, auth.ScopeWMS, serviceEsriMap)
	if !ok {
		return
	}
	e, perr := geoservices.ParseExport(func(k string) string { return arcgisParam(r, k) })
	if perr != nil {
		writeArcGISError(w, perr)
		return
	}
	w.Header().Set("Cache-Control", cacheControl(t.p))
	if e.F != "image" {
		writeArcGISJSON(w, r, e.Result(a.exportHref(r)))
		return
	}
	fr := rastertiles.Frame{SR: e.ImageSR, Box: e.Box, W: e.Width, H: e.Height}
	if err := fr.Check(); err != nil {
		writeArcGISError(w, geoservices.BadRequest("Invalid bbox or size.", err.Error()))
		return
	}
	var shown []*vectortiles.Layer
	for i, l := range t.layers {
		if e.Layers.Shows(t.ids[i]) {
			shown = append(shown, l)
		}
	}
	img, err := a.rasters.DrawFrame(r.Context(), shown, fr, rastertiles.Style{})
	if err != nil {
		a.mapInternal(w, r, err)
		return
	}
	f := rastertiles.PNG
	if e.Format == "jpg" {
		f = rastertiles.JPEG
	}
	if !e.Transparent && f == rastertiles.PNG {
		bg := image.NewNRGBA(img.Bounds())
		draw.Draw(bg, bg.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		draw.Draw(bg, bg.Bounds(), img, image.Point{}, draw.Over)
		img = bg
	}
	body, err := rastertiles.EncodePicture(img, f)
	if err != nil {
		a.mapInternal(w, r, err)
		return
	}
	w.Header().Set("Content-Type", f.ContentType())
	onewrite.Send(w, r, http.StatusOK, body)
}

// exportHref is the URL of the picture an f=json export describes: the
// same request with f=image (the caller's token kept, as it came).
func (a *ArcGIS) exportHref(r *http.Request) string {
	q := arcgisParams(r)
	if q.Has("token") {
		q.Del("key") // ArcGISToken's copy
	}
	q.Set("f", "image")
	return a.origin(r) + r.URL.Path + "?" + q.Encode()
}

// origin is the public origin URLs are written with.
func (a *ArcGIS) origin(r *http.Request) string {
	if a.baseURL != "" {
		return a.baseURL
	}
	return forwarded.Origin(r)
}

// mapTile answers {name}/MapServer/tile/{z}/{y}/{x}: the raster tile
// (PNG) of the layers, transparent where nothing is.
func (a *ArcGIS) mapTile(w http.ResponseWriter, r *http.Request) {
	t, ok := a.mapStart(w, r, auth.ScopeTiles, serviceEsriMap)
	if !ok {
		return
	}
	tile, err := vectortiles.ParseTile(chi.URLParam(r, "z"), chi.URLParam(r, "x"), chi.URLParam(r, "y"))
	if err != nil {
		writeArcGISError(w, geoservices.BadRequest("Invalid tile.", err.Error()))
		return
	}
	ans, err := a.rasters.LayersTile(r.Context(), t.versions, t.layers, tile, rastertiles.PNG, rastertiles.Style{})
	if err != nil {
		a.mapInternal(w, r, err)
		return
	}
	a.sendTile(w, r, t.p, ans.ETag, rastertiles.PNG.ContentType(), ans.Body)
}

// sendTile sends a tile with its validator, or 304.
func (a *ArcGIS) sendTile(w http.ResponseWriter, r *http.Request, p auth.Principal, etag, contentType string, body []byte) {
	etag = `"` + etag + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl(p))
	if notModified(r, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", contentType)
	onewrite.Send(w, r, http.StatusOK, body)
}

// vectorTileServer answers layer_{id}/VectorTileServer.
func (a *ArcGIS) vectorTileServer(w http.ResponseWriter, r *http.Request) {
	t, ok := a.mapStart(w, r, auth.ScopeTiles, serviceVectorEsri)
	if !ok {
		return
	}
	box, has, err := a.bounds(r.Context(), t.layers)
	if err != nil {
		a.mapInternal(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", cacheControl(t.p))
	writeArcGISJSON(w, r, geoservices.NewVectorTileServer(t.title, box, has, vectortiles.TileJSONMaxZoom))
}

// vectorTile answers layer_{id}/VectorTileServer/tile/{z}/{y}/{x}.pbf:
// the MVT the tile service makes (an empty tile is a 200 of no bytes).
func (a *ArcGIS) vectorTile(w http.ResponseWriter, r *http.Request) {
	t, ok := a.mapStart(w, r, auth.ScopeTiles, serviceVectorEsri)
	if !ok {
		return
	}
	x, ext, _ := strings.Cut(chi.URLParam(r, "x"), ".")
	if ext != "" && ext != "pbf" {
		writeArcGISError(w, geoservices.BadRequest("Invalid tile.", "A vector tile's path ends in tile/{z}/{y}/{x}.pbf."))
		return
	}
	tile, err := vectortiles.ParseTile(chi.URLParam(r, "z"), x, chi.URLParam(r, "y"))
	if err != nil {
		writeArcGISError(w, geoservices.BadRequest("Invalid tile.", err.Error()))
		return
	}
	body, err := a.tiles.LayerMVT(r.Context(), t.layers[0], tile)
	if err != nil {
		a.mapInternal(w, r, err)
		return
	}
	h := fnv.New64a()
	_, _ = h.Write(body)
	a.sendTile(w, r, t.p, t.versions+"-"+strconv.FormatUint(h.Sum64(), 36), "application/x-protobuf", body)
}

// vectorStyle answers layer_{id}/VectorTileServer/resources/styles/root.json:
// a Mapbox GL style of the tiles (absolute URLs, the caller's token
// kept as it came in the query).
func (a *ArcGIS) vectorStyle(w http.ResponseWriter, r *http.Request) {
	t, ok := a.mapStart(w, r, auth.ScopeTiles, serviceVectorEsri)
	if !ok {
		return
	}
	tiles := a.origin(r) + ArcGISPath + "/services/" + t.name.String() + "/VectorTileServer/tile/{z}/{y}/{x}.pbf"
	q := url.Values{}
	if tok := r.URL.Query().Get("token"); tok != "" {
		q.Set("token", tok)
	} else if key, fromQuery := queryKey(r); fromQuery {
		q.Set("key", key)
	}
	if len(q) > 0 {
		tiles += "?" + q.Encode()
	}
	l := t.layers[0]
	w.Header().Set("Cache-Control", cacheControl(t.p))
	writeArcGISJSON(w, r, geoservices.NewStyle(t.title, tiles, vectortiles.LayerName(l.ID), vectortiles.TileJSONMaxZoom))
}
