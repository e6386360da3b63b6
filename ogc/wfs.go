package ogc

import (
	"bytes"
	"errors"
	"io"
	"mime"

	"log/slog"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/usage"
	"github.com/geopub/geopub/internal/wfsserver"
)

// WFSPath is where WFS 2.0 and 1.1 are served: GET with KVP, POST with
// an XML request document (or KVP as a form).
const WFSPath = "/services/wfs"

// WFS serves the WFS of s.
type WFS struct {
	s      *wfsserver.Service
	origin string
	logger *slog.Logger
}

// NewWFS returns the front door of s; origin, when set, starts the
// operation URLs the documents give, else the request's scheme and host.
func NewWFS(s *wfsserver.Service, origin string) *WFS {
	return &WFS{s: s, origin: strings.TrimRight(origin, "/"), logger: s.Logger()}
}

// Mount adds WFSPath and WFSPath/ to r, which must run the auth
// middleware that accepts ?key= (with WFSAuthFailure).
func (h *WFS) Mount(r chi.Router) {
	r.With(middleware.GetHead).Get(WFSPath, h.serve)
	r.With(middleware.GetHead).Get(WFSPath+"/", h.serve)
	r.Post(WFSPath, h.serve)
	r.Post(WFSPath+"/", h.serve)
}

// WFSAuthFailure answers a refused key as an ExceptionReport.
func WFSAuthFailure(w http.ResponseWriter, r *http.Request, status int, detail string) {
	writeWFSException(w, versionOf(r), &wfsserver.Exception{Status: status, Code: wfsserver.CodeNoApplicableCode, Text: detail})
}

func versionOf(r *http.Request) string {
	if v := wfsserver.ParseQuery(r.URL.RawQuery)["VERSION"]; v != "" {
		return v
	}
	return "2.0.0"
}

func writeWFSException(w http.ResponseWriter, version string, e *wfsserver.Exception) {
	var b bytes.Buffer
	_ = wfsserver.WriteException(&b, version, e)
	w.Header().Set("Content-Type", wfsserver.ExceptionType)
	w.WriteHeader(e.Status)
	_, _ = w.Write(b.Bytes())
}

func (h *WFS) serve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	auth.SetAcceptedScopes(w.Header(), featuresScopes)
	req, err := parseWFSRequest(w, r)
	if err != nil {
		h.fail(w, r, req.Version, err)
		return
	}
	if err := access.RequireScope(ctx, wfsserver.Scope); err != nil {
		writeWFSException(w, req.Version, &wfsserver.Exception{Status: http.StatusUnauthorized,
			Code: wfsserver.CodeNoApplicableCode, Text: apperr.As(err).Message})
		return
	}
	v, err := access.NewViewer(ctx, h.s.Client(), auth.FromContext(ctx))
	if err != nil {
		h.fail(w, r, req.Version, err)
		return
	}
	res, err := h.s.Serve(ctx, wfsserver.Call{Viewer: v, Request: req, Endpoint: keyedURL(r, h.origin, "/wfs/", true)})
	if err != nil {
		h.fail(w, r, req.Version, err)
		return
	}
	w.Header().Set("Content-Type", res.ContentType)
	usage.Served(w, usage.Layer, res.LayerID, usage.WFS, usage.Amounts{Features: int64(res.Features)})
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if err := res.Write(w); err != nil {
		h.logger.WarnContext(ctx, "wfs response cut short", "err", err)
	}
}

// fail writes err as an ExceptionReport; unexpected errors are logged
// and answered 500 without details.
func (h *WFS) fail(w http.ResponseWriter, r *http.Request, version string, err error) {
	var e *wfsserver.Exception
	if u, ok := unavailable(w, err); ok {
		e = &wfsserver.Exception{Status: u.Code.HTTPStatus(), Code: wfsserver.CodeOperationProcessingFailed, Text: u.Message}
	} else if !errors.As(err, &e) {
		h.logger.ErrorContext(r.Context(), "wfs request failed", "query", redactKey(r), "err", err)
		e = &wfsserver.Exception{Status: http.StatusInternalServerError, Code: wfsserver.CodeNoApplicableCode, Text: "Internal error."}
	}
	writeWFSException(w, version, e)
}

// redactKey is the request's query without its key.
func redactKey(r *http.Request) string {
	q := r.URL.Query()
	q.Del("key")
	return q.Encode()
}

// parseWFSRequest reads a GET's query, or a POST's body: KVP when it is a
// form, else an XML request document, at most MaxPostBytes of it.
func parseWFSRequest(w http.ResponseWriter, r *http.Request) (*wfsserver.Request, error) {
	if r.Method != http.MethodPost {
		return wfsserver.ParseRequest(r.URL.RawQuery)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, wfsserver.MaxPostBytes+1))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &wfsserver.Request{Version: "2.0.0"}, wfsserver.TooLarge()
	}
	if err != nil {
		return &wfsserver.Request{Version: "2.0.0"}, &wfsserver.Exception{Status: http.StatusBadRequest,
			Code: wfsserver.CodeOperationParsingFailed, Locator: "request", Text: "the request body could not be read"}
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "application/x-www-form-urlencoded" {
		return wfsserver.ParseRequest(string(body))
	}
	return wfsserver.ParsePost(body)
}
