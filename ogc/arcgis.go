package ogc

import (
	"encoding/json"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/geoservices"
	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/vectortiles"
)

// ArcGISPath is the root of GeoServices REST (the ArcGIS REST API):
//
//	/services/arcgis/rest/info                        server info (token services)
//	/services/arcgis/rest/services                    the services directory
//	/services/arcgis/rest/services/{name}/FeatureServer[/{layer}[/query]]
//	/services/arcgis/rest/services/{name}/MapServer[/{layer}[/query]|/export|/tile/{z}/{y}/{x}]
//	/services/arcgis/rest/services/{name}/VectorTileServer[/...]
//
// where {name} is layer_{id} or set_{id} (geoservices.ServiceName).
const ArcGISPath = "/services/arcgis/rest"

// ArcGIS serves published layers and sets through GeoServices REST.
type ArcGIS struct {
	feats   *ogcfeatures.Service
	tiles   *vectortiles.Service
	rasters *rastertiles.Service
	baseURL string
	logger  *slog.Logger
}

// NewArcGIS returns the GeoServices REST door; baseURL, when set, is the
// public origin of the URLs its documents give (else the request's own).
func NewArcGIS(feats *ogcfeatures.Service, tiles *vectortiles.Service, rasters *rastertiles.Service, baseURL string, logger *slog.Logger) *ArcGIS {
	return &ArcGIS{feats: feats, tiles: tiles, rasters: rasters, baseURL: strings.TrimRight(baseURL, "/"), logger: logger}
}

// Mount adds the routes to r, which must run ArcGISToken and the auth
// middleware that accepts ?key= (with ArcGISAuthFailure).
func (a *ArcGIS) Mount(r chi.Router) {
	a.mountFeatureServer(slashed{r})
	a.mountMapServer(slashed{r})
}

// slashed registers the service and layer resources (paths ending in
// Server or Server/{layer}) also with a final slash: Esri Leaflet asks
// for the URL it was given with one added (MapServer/?f=json).
type slashed struct{ chi.Router }

func slashedToo(p string) bool {
	return strings.HasSuffix(p, "Server") || strings.HasSuffix(p, "Server/{layer}") ||
		strings.HasSuffix(p, "Server/{layer:[0-9]+}")
}

func (s slashed) Get(p string, h http.HandlerFunc) {
	s.Router.Get(p, h)
	if slashedToo(p) {
		s.Router.Get(p+"/", h)
	}
}

func (s slashed) Head(p string, h http.HandlerFunc) {
	s.Router.Head(p, h)
	if slashedToo(p) {
		s.Router.Head(p+"/", h)
	}
}

func (s slashed) Post(p string, h http.HandlerFunc) {
	s.Router.Post(p, h)
	if slashedToo(p) {
		s.Router.Post(p+"/", h)
	}
}

func (s slashed) Options(p string, h http.HandlerFunc) {
	s.Router.Options(p, h)
	if slashedToo(p) {
		s.Router.Options(p+"/", h)
	}
}

// maxArcGISForm bounds a POSTed form (Esri clients POST long where
// clauses and geometries): 1 MiB.
const maxArcGISForm = 1 << 20

// ArcGISToken moves an Esri client's token (token= in the query or in a
// POSTed form) to the key parameter the auth middleware reads; the other
// key forms (header, ?key=, /services;key=) work as on every service.
// POSTed forms are read once here, bounded, so handlers read r.Form.
func ArcGISToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if ct == "application/x-www-form-urlencoded" {
				r.Body = http.MaxBytesReader(w, r.Body, maxArcGISForm)
				if err := r.ParseForm(); err != nil {
					writeArcGISError(w, geoservices.BadRequest("Unable to read the request body: at most 1 MiB of form fields.", err.Error()))
					return
				}
			}
		}
		tok := r.URL.Query().Get("token")
		if tok == "" && r.PostForm != nil {
			tok = r.PostForm.Get("token")
		}
		if tok != "" && r.URL.Query().Get("key") == "" {
			q := r.URL.Query()
			q.Set("key", tok)
			u := *r.URL
			u.RawQuery = q.Encode()
			r.URL = &u
		}
		next.ServeHTTP(w, r)
	})
}

// ArcGISAuthFailure answers a refused token or key as GeoServices error
// JSON: 498 (invalid token) for a bad one, the status itself otherwise.
func ArcGISAuthFailure(w http.ResponseWriter, _ *http.Request, status int, detail string) {
	e := &geoservices.Error{Code: status, Message: detail}
	if status == http.StatusUnauthorized {
		e.Code = geoservices.CodeInvalidToken
	}
	writeArcGISError(w, e)
}

// writeArcGISError sends e as the error document with its status.
func writeArcGISError(w http.ResponseWriter, e *geoservices.Error) {
	h := w.Header()
	allowAnyOrigin(h)
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Del("ETag")
	w.WriteHeader(e.Status())
	_, _ = w.Write(e.JSON())
}

// writeArcGISJSON sends v as JSON (indented for f=pjson).
func writeArcGISJSON(w http.ResponseWriter, r *http.Request, v any) {
	h := w.Header()
	allowAnyOrigin(h)
	h.Set("Content-Type", "application/json; charset=utf-8")
	enc := json.NewEncoder(w)
	if arcgisParam(r, "f") == "pjson" {
		enc.SetIndent("", "  ")
	}
	_ = enc.Encode(v)
}

// arcgisParam is a parameter from the query or, for POSTs, the form
// (ArcGISToken parsed it).
func arcgisParam(r *http.Request, name string) string {
	if r.PostForm != nil {
		if v, ok := r.PostForm[name]; ok && len(v) > 0 {
			return v[0]
		}
	}
	return r.URL.Query().Get(name)
}

// arcgisParams are all parameters, the form's over the query's.
func arcgisParams(r *http.Request) url.Values {
	out := url.Values{}
	for k, v := range r.URL.Query() {
		out[k] = v
	}
	for k, v := range r.PostForm {
		out[k] = v
	}
	return out
}
