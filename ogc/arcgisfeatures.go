package ogc

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/geoservices"
	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/usage"
)

// arcgisQueryScopes are the token scopes of FeatureServer and the layer
// resources.
var arcgisQueryScopes = []string{auth.ScopeQuery}

// featureServer answers the services directory, FeatureServer and the
// MapServer layer resources.
type featureServer struct {
	a  *ArcGIS
	gs *geoservices.Service
}

// mountFeatureServer adds the services directory, FeatureServer and the
// MapServer layer resources and queries.
func (a *ArcGIS) mountFeatureServer(r chi.Router) {
	h := &featureServer{a: a, gs: geoservices.New(a.feats)}
	routes := map[string]http.HandlerFunc{
		ArcGISPath + "/info":                                               h.info,
		ArcGISPath + "/services":                                           h.directory,
		ArcGISPath + "/services/{name}/FeatureServer":                      h.service,
		ArcGISPath + "/services/{name}/FeatureServer/{layer:[0-9]+}":       h.layer(false),
		ArcGISPath + "/services/{name}/FeatureServer/{layer:[0-9]+}/query": h.query(false),
		ArcGISPath + "/services/{name}/MapServer/{layer:[0-9]+}":           h.layer(true),
		ArcGISPath + "/services/{name}/MapServer/{layer:[0-9]+}/query":     h.query(true),
	}
	for p, fn := range routes {
		r.Get(p, fn)
		r.Post(p, fn)
		r.Options(p, arcgisPreflight)
	}
}

// arcgisPreflight answers CORS preflight requests of browser clients.
func arcgisPreflight(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	allowAnyOrigin(h)
	h.Set("Access-Control-Allow-Methods", "GET, POST")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Esri-Authorization")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// start checks f, the scope and resolves the viewer; nil when it already
// answered.
func (h *featureServer) start(w http.ResponseWriter, r *http.Request) *access.Viewer {
	auth.SetAcceptedScopes(w.Header(), arcgisQueryScopes)
	switch arcgisParam(r, "f") {
	case "", "json", "pjson", "geojson", "pbf":
	default:
		writeArcGISError(w, geoservices.BadRequest("Invalid or missing input parameters.", "f must be json, pjson, geojson or pbf"))
		return nil
	}
	if p := auth.FromContext(r.Context()); !p.HasScope(auth.ScopeQuery) {
		writeArcGISError(w, &geoservices.Error{Code: http.StatusUnauthorized, Message: "This API key lacks the query scope."})
		return nil
	}
	v, err := access.NewViewer(r.Context(), h.a.feats.Client(), auth.FromContext(r.Context()))
	if err != nil {
		h.fail(w, r, err)
		return nil
	}
	return v
}

// fail answers err: its own Esri error, else a 400 for a refused
// coordinate transformation, else a logged 500.
func (h *featureServer) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *geoservices.Error
	var p *ogcfeatures.Problem
	switch {
	case errors.As(err, &e):
	case errors.As(err, &p) && p.Status < 500:
		e = geoservices.BadRequest("Unable to complete operation.", p.Description)
	case ogcfeatures.IsTransformError(err):
		e = geoservices.BadRequest("Unable to complete operation.", "The features cannot be given in that spatial reference: some lie outside its area.")
	default:
		if u, ok := unavailable(w, err); ok {
			e = &geoservices.Error{Code: u.Code.HTTPStatus(), Message: u.Message}
			break
		}
		h.a.logger.ErrorContext(r.Context(), "arcgis request failed", "path", r.URL.Path, "err", err)
		e = &geoservices.Error{Code: 500, Message: "Unable to complete operation."}
	}
	writeArcGISError(w, e)
}

// info answers anyone: it names no dataset.
func (h *featureServer) info(w http.ResponseWriter, r *http.Request) {
	writeArcGISJSON(w, r, map[string]any{
		"currentVersion": geoservices.CurrentVersion, "fullVersion": "11.3.0", "soapUrl": nil, "secureSoapUrl": nil,
		"authInfo": map[string]any{"isTokenBasedSecurity": false},
	})
}

func (h *featureServer) directory(w http.ResponseWriter, r *http.Request) {
	v := h.start(w, r)
	if v == nil {
		return
	}
	svcs, err := h.gs.Directory(r.Context(), v)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeArcGISJSON(w, r, map[string]any{"currentVersion": geoservices.CurrentVersion, "folders": []string{}, "services": svcs})
}

// layers resolves {name}; nil when it already answered.
func (h *featureServer) layers(w http.ResponseWriter, r *http.Request, v *access.Viewer, mapServer bool) []*ogcfeatures.Collection {
	n, ok := geoservices.ParseServiceName(chi.URLParam(r, "name"))
	if !ok {
		writeArcGISError(w, geoservices.NotFound("Service not found: services are named layer_{id} or set_{id}."))
		return nil
	}
	cs, ok, err := h.gs.Layers(r.Context(), v, n, mapServer)
	if err != nil {
		h.fail(w, r, err)
		return nil
	}
	if !ok {
		writeArcGISError(w, geoservices.NotFound("Service not found."))
		return nil
	}
	return cs
}

// oneLayer resolves {name} and {layer}; nil when it already answered.
func (h *featureServer) oneLayer(w http.ResponseWriter, r *http.Request, mapServer bool) (*ogcfeatures.Collection, int) {
	v := h.start(w, r)
	if v == nil {
		return nil, 0
	}
	s := chi.URLParam(r, "layer")
	id, err := strconv.Atoi(s)
	if err != nil || id < 0 || strconv.Itoa(id) != s {
		writeArcGISError(w, geoservices.NotFound("Layer not found: layers are numbered from 0."))
		return nil, 0
	}
	cs := h.layers(w, r, v, mapServer)
	if cs == nil {
		return nil, 0
	}
	if id >= len(cs) {
		writeArcGISError(w, geoservices.NotFound("Layer not found."))
		return nil, 0
	}
	return cs[id], id
}

func (h *featureServer) service(w http.ResponseWriter, r *http.Request) {
	v := h.start(w, r)
	if v == nil {
		return
	}
	cs := h.layers(w, r, v, false)
	if cs == nil {
		return
	}
	if err := h.a.feats.AddExtents(r.Context(), cs...); err != nil {
		h.fail(w, r, err)
		return
	}
	writeArcGISJSON(w, r, geoservices.ServiceDoc(chi.URLParam(r, "name"), cs))
}

func (h *featureServer) layer(mapServer bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, id := h.oneLayer(w, r, mapServer)
		if c == nil {
			return
		}
		if err := h.a.feats.AddExtents(r.Context(), c); err != nil {
			h.fail(w, r, err)
			return
		}
		writeArcGISJSON(w, r, geoservices.LayerDoc(c, id))
	}
}

func (h *featureServer) query(mapServer bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, _ := h.oneLayer(w, r, mapServer)
		if c == nil {
			return
		}
		q, err := geoservices.ParseQuery(arcgisParams(r), c)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		var b bytes.Buffer
		if err := h.answer(r, &b, c, q); err != nil {
			h.fail(w, r, err)
			return
		}
		hd := w.Header()
		allowAnyOrigin(hd)
		switch q.Format {
		case geoservices.FormatPBF:
			hd.Set("Content-Type", "application/x-protobuf")
		case geoservices.FormatGeoJSON:
			hd.Set("Content-Type", "application/geo+json; charset=utf-8")
		default:
			hd.Set("Content-Type", "application/json; charset=utf-8")
		}
		// Requests and bytes only: the answer's writer does not tell how
		// many features it held.
		svc := usage.ArcGIS
		if mapServer {
			svc = usage.ArcGISMap
		}
		usage.Served(w, usage.Layer, c.LayerID, svc, usage.Amounts{})
		_, _ = w.Write(b.Bytes())
	}
}

// answer writes q's answer to b.
func (h *featureServer) answer(r *http.Request, b *bytes.Buffer, c *ogcfeatures.Collection, q *geoservices.Query) error {
	ctx := r.Context()
	pretty := arcgisParam(r, "f") == "pjson"
	return h.gs.Answer(ctx, b, c, q, pretty)
}
