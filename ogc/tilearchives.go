package ogc

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/tilearchives"
	"github.com/geopub/geopub/internal/usage"
)

// TileArchives serves the tile archives of published layers and sets
// (internal/tilearchives) under the tile path:
//
//	/services/tiles/v1/layer={id}/tiles.pmtiles   vector PMTiles (vector-tile-pmtiles)
//	/services/tiles/v1/layer={id}/tiles.mbtiles   vector MBTiles (vector-tile-mbtiles)
//	/services/tiles/v1/layer={id}/raster.pmtiles  raster PMTiles, PNG (raster-pmtile)
//	/services/tiles/v1/set={id}/raster.pmtiles    a set's members drawn in order
//
// each with HTTP range requests (206, multiple ranges, If-Range, ETag
// naming the build), from local or S3 blob storage alike; and at the
// same URL + ".json" the archive's description: its state, progress,
// size, zoom range and limits (GET), or a build request with a zoom range
// (POST, publishers: layers:write or sets:write and edit on the dataset).
// An archive not built yet answers 404 with Retry-After and the
// description, and its first request queues its build.
type TileArchives struct {
	svc     *tilearchives.Service
	baseURL string
	logger  *slog.Logger
}

// NewTileArchives returns the archive front door over svc.
func NewTileArchives(svc *tilearchives.Service, baseURL string, logger *slog.Logger) *TileArchives {
	return &TileArchives{svc: svc, baseURL: strings.TrimRight(baseURL, "/"), logger: logger}
}

var archiveFiles = []string{"tiles.pmtiles", "tiles.mbtiles", "raster.pmtiles"}

// Mount adds the archive routes to r, which must run the authentication
// middleware that accepts ?key=.
func (a *TileArchives) Mount(r chi.Router) {
	for _, f := range archiveFiles {
		p := TilesPath + "/{owner}/" + f
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			r.MethodFunc(m, p, a.file)
			r.MethodFunc(m, p+".json", a.describe)
		}
		r.Post(p+".json", a.request)
		r.Options(p, archivePreflight)
		r.Options(p+".json", archivePreflight)
	}
}

// IsArchiveFile reports whether r downloads an archive file, whose
// length is the file's: no request time budget applies.
func IsArchiveFile(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, ".pmtiles") || strings.HasSuffix(r.URL.Path, ".mbtiles")
}

// archiveCORS lets maps on any origin read archives by ranges: PMTiles
// readers in browsers send Range and read Content-Range and ETag.
func archiveCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "ETag, Content-Range, Accept-Ranges, Content-Length, Retry-After, RateLimit, RateLimit-Policy")
}

func archivePreflight(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	archiveCORS(h)
	h.Set("Access-Control-Allow-Methods", "GET, HEAD")
	h.Set("Access-Control-Allow-Headers", "Authorization, Range, If-Range, If-None-Match, If-Match")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// start checks the owner and file and the caller's scope and finds the
// archive's owner as the caller may use it; ok is false when it answered.
func (a *TileArchives) start(w http.ResponseWriter, r *http.Request, scope string) (*tilearchives.Target, bool) {
	auth.SetAcceptedScopes(w.Header(), []string{scope})
	archiveCORS(w.Header())
	kind, id, ok := owner(chi.URLParam(r, "owner"))
	if !ok {
		fail(w, http.StatusNotFound, "Not found: archives are at "+TilesPath+"/layer={id}/tiles.pmtiles, tiles.mbtiles or raster.pmtiles, or "+TilesPath+"/set={id}/raster.pmtiles.")
		return nil, false
	}
	file := strings.TrimSuffix(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], ".json")
	service, ok := tilearchives.ServiceOf(kind, file)
	if !ok {
		fail(w, http.StatusNotFound, "Not found: a set has only raster.pmtiles.")
		return nil, false
	}
	ctx := r.Context()
	p := auth.FromContext(ctx)
	if !p.HasScope(scope) {
		fail(w, http.StatusUnauthorized, "This API key lacks the "+scope+" scope.")
		return nil, false
	}
	v, err := a.svc.Tiles.Viewer(ctx, p)
	if err != nil {
		internalError(w, r, a.logger, "tile archive failed", err)
		return nil, false
	}
	t, err := a.svc.Usable(ctx, v, kind, id, service)
	if err != nil {
		refuseTiles(w, r, a.logger, kind, id, err, tilearchives.ErrNotFound, "a tile archive")
		return nil, false
	}
	return t, true
}

// file serves the archive's file, queueing its build when it has none.
func (a *TileArchives) file(w http.ResponseWriter, r *http.Request) {
	t, ok := a.start(w, r, auth.ScopeTiles)
	if !ok {
		return
	}
	ctx := r.Context()
	st, err := a.svc.Ensure(ctx, t)
	if err != nil {
		internalError(w, r, a.logger, "tile archive failed", err)
		return
	}
	if !st.Ready {
		a.notReady(w, r, st)
		return
	}
	p := auth.FromContext(ctx)
	v, err := a.svc.Tiles.Viewer(ctx, p)
	if err != nil {
		internalError(w, r, a.logger, "tile archive failed", err)
		return
	}
	if ok, err := a.svc.MayRead(ctx, v, st); err != nil {
		internalError(w, r, a.logger, "tile archive failed", err)
		return
	} else if !ok {
		// The file draws a member the caller may not see.
		refuseTiles(w, r, a.logger, t.Kind, t.ID, tilearchives.ErrNotFound, tilearchives.ErrNotFound, "a tile archive")
		return
	}
	f, err := a.svc.Blobs.OpenSeekable(ctx, st.BlobKey)
	if err != nil {
		internalError(w, r, a.logger, "opening a tile archive", err)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", tilearchives.ContentType(t.Service))
	h.Set("ETag", `"`+st.ETag+`"`)
	h.Set("Cache-Control", cacheControl(p))
	if t.Service == tilearchives.ServiceMBTiles {
		h.Set("Content-Disposition", `attachment; filename="`+t.Kind+"-"+strconv.Itoa(t.ID)+`.mbtiles"`)
	}
	var mod time.Time
	if st.BuiltAt != nil {
		mod = *st.BuiltAt
	}
	// A map's reader asks for ranges: each a request with its bytes, a
	// download only when the whole file is sent (usage counts it so).
	usage.Served(w, usage.KindOf(t.Kind), t.ID, usage.TileArchive, usage.Amounts{Downloads: 1})
	// ServeContent answers Range (206, multipart for several ranges, 416
	// when none is satisfiable), If-Range, If-None-Match and HEAD.
	http.ServeContent(w, r, "", mod, f)
}

// notReady answers a request for a file not built yet: 404 with the
// archive's description (its state and progress), and Retry-After while
// a build is queued or runs. Not a 503: the service is up, the file is
// not there yet, and a failed build will not mend by retrying.
func (a *TileArchives) notReady(w http.ResponseWriter, r *http.Request, st *tilearchives.Status) {
	status := http.StatusNotFound
	if st.State != "failed" {
		w.Header().Set("Retry-After", "5")
	}
	doc := a.doc(r, st)
	doc["detail"] = "The archive is not ready yet: it is " + st.State + "."
	if st.State == "failed" {
		doc["detail"] = "The archive could not be built: " + st.Error
	}
	writeArchiveJSON(w, status, doc)
}

// describe answers the archive's description.
func (a *TileArchives) describe(w http.ResponseWriter, r *http.Request) {
	t, ok := a.start(w, r, auth.ScopeTiles)
	if !ok {
		return
	}
	st, err := a.svc.Describe(r.Context(), t)
	if err != nil {
		internalError(w, r, a.logger, "tile archive failed", err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeArchiveJSON(w, http.StatusOK, a.doc(r, st))
}

// request queues a build with the zoom range asked for (minzoom and
// maxzoom in the query or a form; neither: the default range).
func (a *TileArchives) request(w http.ResponseWriter, r *http.Request) {
	scope := auth.ScopeLayersWrite
	if kind, _, _ := owner(chi.URLParam(r, "owner")); kind == "set" {
		scope = auth.ScopeSetsWrite
	}
	if !auth.FromContext(r.Context()).Authenticated() {
		auth.SetAcceptedScopes(w.Header(), []string{scope})
		archiveCORS(w.Header())
		fail(w, http.StatusUnauthorized, "Authentication credentials were not provided.")
		return
	}
	t, ok := a.start(w, r, scope)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		fail(w, http.StatusBadRequest, "The request's form could not be read: "+err.Error())
		return
	}
	lo, hi := -1, -1
	for _, z := range []struct {
		name string
		to   *int
	}{{"minzoom", &lo}, {"maxzoom", &hi}} {
		s := r.Form.Get(z.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 30 {
			fail(w, http.StatusBadRequest, z.name+" must be a zoom level, a whole number from 0.")
			return
		}
		*z.to = n
	}
	if (lo < 0) != (hi < 0) {
		// One end given: the other is the default's.
		d, _ := a.svc.Describe(r.Context(), t)
		if d != nil && lo < 0 {
			lo = d.Limits.DefaultMinZoom
		}
		if d != nil && hi < 0 {
			hi = d.Limits.DefaultMaxZoom
		}
	}
	ctx := r.Context()
	v, err := a.svc.Tiles.Viewer(ctx, auth.FromContext(ctx))
	if err != nil {
		internalError(w, r, a.logger, "tile archive failed", err)
		return
	}
	st, err := a.svc.Request(ctx, v, t, lo, hi)
	switch {
	case errors.Is(err, tilearchives.ErrForbidden):
		fail(w, http.StatusForbidden, "You do not have permission to build this dataset's archives: that needs edit on it.")
		return
	case err != nil:
		if e := apperr.As(err); e.Code != apperr.Internal {
			fail(w, e.Code.HTTPStatus(), e.Message)
			return
		}
		internalError(w, r, a.logger, "tile archive failed", err)
		return
	}
	writeArchiveJSON(w, http.StatusAccepted, a.doc(r, st))
}

// url is the archive file's URL, carrying the key as the request did.
func (a *TileArchives) url(r *http.Request, st *tilearchives.Status) string {
	return keyedURL(r, a.baseURL, "/tiles/v1/"+st.Kind+"="+strconv.Itoa(st.ID)+"/"+tilearchives.File(st.Service), false)
}

// doc is an archive's description.
func (a *TileArchives) doc(r *http.Request, st *tilearchives.Status) map[string]any {
	format, tileType := "pmtiles", "mvt"
	if st.Service == tilearchives.ServiceMBTiles {
		format = "mbtiles"
	}
	if st.Service == tilearchives.ServiceRasterPMTiles {
		tileType = "png"
	}
	building := st.State == "queued" || st.State == "building"
	d := map[string]any{
		"owner": st.Kind, "id": st.ID, "service": st.Service, "format": format, "tile_type": tileType,
		"url": a.url(r, st), "state": st.State, "ready": st.Ready, "rebuilding": st.Ready && building,
		"limits": st.Limits,
	}
	if st.Ready {
		d["file"] = map[string]any{"version_id": st.VersionID, "etag": st.ETag, "bytes": st.Bytes, "tiles": st.TileCount,
			"minzoom": st.MinZoom, "maxzoom": st.MaxZoom, "bounds": st.Bounds, "built_at": st.BuiltAt}
	}
	if st.State != "none" {
		d["build"] = map[string]any{"state": st.State, "minzoom": st.RangeMinZoom, "maxzoom": st.RangeMaxZoom,
			"auto_zoom": st.AutoZoom, "tiles_done": st.TilesDone, "tiles_estimate": st.TilesEstimate,
			"progress": st.Progress(), "error": st.Error, "updated_at": st.UpdatedAt}
	}
	if st.Plan != nil {
		d["plan"] = map[string]any{"minzoom": st.Plan.MinZoom, "maxzoom": st.Plan.MaxZoom, "bounds": st.Plan.Bounds,
			"estimated_tiles": st.Plan.Tiles, "estimated_bytes": st.Plan.Bytes}
	}
	return d
}

func writeArchiveJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"detail":"Internal error."}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("ETag")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
