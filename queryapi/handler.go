package queryapi

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/geodesic"
	"github.com/geopub/geopub/internal/gzipbody"
	"github.com/geopub/geopub/internal/usage"
)

// auth.ScopeQuery is the token scope of the point-query APIs.

// Mount adds the point-query routes to r, which must run the auth
// middleware that accepts ?key=: /services/query/v1/vector[.json|.xml],
// the legacy /api/vectorQuery[.json|.xml][/], /services/query/v1/raster[.json]
// and /services/query/v1/set[.json].
func (s *Service) Mount(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(scopeHeader)
		for _, suffix := range []string{"", "json", "xml"} {
			h := s.vector(suffix)
			ext := ""
			if suffix != "" {
				ext = "." + suffix
			}
			r.Get("/services/query/v1/vector"+ext, h)
			r.Get("/api/vectorQuery"+ext, h)
			r.Get("/api/vectorQuery"+ext+"/", h)
		}
		r.Get("/api/vectorQuery/", s.vector(""))
		for _, suffix := range []string{"", "json"} {
			ext := ""
			if suffix != "" {
				ext = "." + suffix
			}
			r.Get("/services/query/v1/raster"+ext, s.raster(suffix))
			r.Get("/services/query/v1/set"+ext, s.set(suffix))
		}
	})
}

// Header values every point query sends, shared by all responses: set
// with h[key] = value (the key in canonical form), never changed in
// place. Point queries are many and small; Header.Set would canonicalise
// the key and allocate the value each time.
var (
	acceptedScopesValue = []string{auth.ScopeQuery}
	varyValue           = []string{"Accept, Accept-Encoding"}
)

// scopeHeader names the scope every point query needs.
func scopeHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.SetAcceptedScopes(w.Header(), acceptedScopesValue)
		next.ServeHTTP(w, r)
	})
}

// reply is a point-query response being written.
type reply struct {
	w        http.ResponseWriter
	gzip     bool // the client accepts gzip
	api      api
	format   format
	version  string
	callback string
	query    url.Values // the parsed query string
}

// fail writes an error: under JSONP, 200 with the message as a string (the
// spec's rule for callback requests), else status with {"error": msg} (or
// <error> in XML).
func (rp reply) fail(status int, msg string) {
	var b bytes.Buffer
	switch {
	case rp.callback != "":
		status = http.StatusOK
		b.WriteString("/**/" + rp.callback + "(")
		featureindex.WriteJSONString(&b, msg)
		b.WriteString(");")
		rp.w.Header().Set("Content-Type", "application/javascript; charset=utf-8")
	case rp.format == formatXML:
		b.WriteString(xml.Header + "<error>")
		_ = xml.EscapeText(&b, []byte(msg))
		b.WriteString("</error>")
		rp.w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	default:
		enc, _ := json.Marshal(map[string]string{"error": msg})
		b.Write(enc)
		rp.w.Header().Set("Content-Type", "application/json")
	}
	rp.w.WriteHeader(status)
	_, _ = rp.w.Write(b.Bytes())
}

// send writes a successful body, wrapped for JSONP.
func (rp reply) send(status int, body []byte) {
	h := rp.w.Header()
	h["Vary"] = varyValue
	if rp.callback != "" {
		h.Set("Content-Type", "application/javascript; charset=utf-8")
		status = http.StatusOK
		body = append(append([]byte("/**/"+rp.callback+"("), body...), ");"...)
	} else {
		h["Content-Type"] = rp.api.contentType(rp.format, rp.version)
	}
	if rp.gzip && len(body) >= gzipbody.MinSize {
		writeGzip(rp.w, status, body)
		return
	}
	rp.w.WriteHeader(status)
	_, _ = rp.w.Write(body)
}

// start negotiates a request's format, version and callback, and checks
// its credentials; ok is false when it already answered.
func (s *Service) start(w http.ResponseWriter, r *http.Request, a api, suffix string) (reply, bool) {
	rp := reply{w: w, api: a, format: formatJSON, version: a.current(), gzip: gzipbody.Accepted(r)}
	q := parseQuery(r.URL.RawQuery)
	rp.query = q
	cb, err := parseCallback(q)
	if err != nil {
		rp.fail(http.StatusBadRequest, err.Error())
		return rp, false
	}
	f, version, err := a.negotiate(suffix, r.Header.Get("Accept"), q.Get("v"))
	rp.callback = cb
	if errors.Is(err, errNotAcceptable) {
		rp.callback = ""
		rp.fail(http.StatusNotAcceptable, "None of the media types in Accept is offered: ask for application/json or a "+a.name+" media type.")
		return rp, false
	}
	if err != nil {
		rp.fail(http.StatusBadRequest, err.Error())
		return rp, false
	}
	rp.format, rp.version = f, version
	if cb != "" && f == formatXML {
		rp.callback = ""
		rp.fail(http.StatusBadRequest, "callback (JSONP) is offered for the JSON formats only")
		return rp, false
	}
	p := auth.FromContext(r.Context())
	if !p.Authenticated() {
		rp.fail(http.StatusUnauthorized, "key is required: give an API key with the query scope")
		return rp, false
	}
	if !p.HasScope(auth.ScopeQuery) {
		rp.fail(http.StatusUnauthorized, "This API key lacks the query scope.")
		return rp, false
	}
	return rp, true
}

// vector serves the vector query for a URL suffix ("", "json", "xml").
func (s *Service) vector(suffix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rp, ok := s.start(w, r, vectorAPI, suffix)
		if !ok {
			return
		}
		p, err := parseVector(rp.query, rp.version)
		if err != nil {
			rp.fail(http.StatusBadRequest, err.Error())
			return
		}
		p.callback = rp.callback
		ctx := r.Context()
		v, err := s.viewer(r)
		if err != nil {
			s.internal(rp, r, err)
			return
		}
		point := geodesic.Point{Lon: p.x, Lat: p.y}
		results := make([]layerResult, len(p.layers))
		answered := 0
		for i, id := range p.layers {
			results[i] = layerResult{id: id}
			l, err := s.queryable(r, v, id, serviceVector)
			if err != nil {
				s.internal(rp, r, err)
				return
			}
			if l == nil {
				results[i].err = "Layer " + strconv.Itoa(id) + " was not found or is not available for vector queries."
				continue
			}
			ix, err := s.indexes.Get(ctx, l.VersionID)
			if err != nil {
				s.internal(rp, r, err)
				return
			}
			results[i].layer, results[i].ix = l, ix
			results[i].hits = Nearest(ix, point, p.radius, p.maxResults)
			answered++
			usage.Served(w, usage.Layer, id, usage.QueryVector, usage.Amounts{Features: int64(len(results[i].hits))})
		}
		b := getBuffer()
		defer putBuffer(b)
		switch rp.format {
		case formatXML:
			encodeVectorXML(b, results, p)
		case formatGmaps:
			encodeVectorGmaps(b, results, p)
		default:
			encodeVectorJSON(b, results, p)
		}
		status := http.StatusOK
		if answered == 0 {
			// Unknown and forbidden layers answer alike: nothing leaks.
			status = http.StatusNotFound
			if len(results) == 1 {
				rp.fail(status, results[0].err)
				return
			}
		}
		rp.send(status, b.Bytes())
	}
}

// The services that point queries go through.
const (
	serviceVector = "spatial-query-vector"
	serviceGrid   = "spatial-query-grid"
	serviceSet    = "spatial-query-set"
)

// queryable returns a published layer the viewer may query through
// service (vector layers through serviceVector, grid and raster layers
// through serviceGrid), nil when there is none (unknown, unpublished,
// forbidden, of another kind, or with the service off): callers cannot
// tell which.
func (s *Service) queryable(r *http.Request, v *access.Viewer, id int, service string) (*Layer, error) {
	l, err := s.layer(r.Context(), id)
	if err != nil || l == nil {
		return nil, err
	}
	if (service == serviceVector) != (l.Kind == layer.KindVector) {
		return nil, nil
	}
	ok, err := s.mayUse(r.Context(), v, l.Owner, service)
	if err != nil || !ok {
		return nil, err
	}
	return l, nil
}

// buffers are reused response buffers: point queries answer many small
// bodies.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

// putBuffer returns a buffer once its bytes are written; large ones are
// left to the collector so the pool stays small.
func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 64<<10 {
		b.Reset()
		buffers.Put(b)
	}
}

// internal logs an unexpected failure and answers 500 without details.
func (s *Service) internal(rp reply, r *http.Request, err error) {
	if e := apperr.As(err); e.Code == apperr.TimedOut || e.Code == apperr.Unavailable {
		// The request's time budget ran out (504) or the database is out
		// of reach (503): said, not logged as a fault.
		if e.RetryAfter > 0 {
			rp.w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
		}
		rp.fail(e.Code.HTTPStatus(), e.Message)
		return
	}
	s.logger.ErrorContext(r.Context(), "point query failed", "path", r.URL.Path, "err", err)
	rp.fail(http.StatusInternalServerError, "Internal error.")
}

// viewer resolves the request's principal for access decisions.
func (s *Service) viewer(r *http.Request) (*access.Viewer, error) {
	p := auth.FromContext(r.Context())
	if !p.Authenticated() {
		return access.NewViewer(r.Context(), s.client, p)
	}
	now := time.Now()
	if v, ok := s.viewers.Get(p.User.ID, now); ok {
		return v, nil
	}
	v, err := access.NewViewer(r.Context(), s.client, p)
	if err != nil {
		return nil, err
	}
	s.viewers.Put(p.User.ID, v, now.Add(s.cfg.Fresh))
	return v, nil
}
