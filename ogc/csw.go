package ogc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/cswserver"
	"github.com/geopub/geopub/internal/forwarded"
)

// CSWPath is where the catalogue's CSW 2.0.2 and 3.0 are served; a
// dataset's own CSW is CSWPath/{identifier}/.
const CSWPath = "/services/csw"

// CatalogRecords answers the catalogue's records for the caller in ctx
// (graph.Resolver): the query /data/ and the other metadata doors use.
type CatalogRecords interface {
	CatalogRecords(ctx context.Context, q catalogrecords.Query) (*catalogrecords.Page, error)
	CatalogRecord(ctx context.Context, identifier, origin string) (*catalogrecords.Record, error)
}

// CSW serves the catalogue through CSW.
type CSW struct {
	src    CatalogRecords
	origin string
	logger *slog.Logger
}

// NewCSW returns the CSW door over src; origin, when set, starts the
// URLs the documents give, else the request's scheme and host.
func NewCSW(src CatalogRecords, origin string, logger *slog.Logger) *CSW {
	return &CSW{src: src, origin: strings.TrimRight(origin, "/"), logger: logger}
}

// Mount adds the routes to r, which must run the auth middleware that
// accepts ?key= (with CSWAuthFailure).
func (h *CSW) Mount(r chi.Router) {
	for _, p := range []string{CSWPath, CSWPath + "/", CSWPath + "/{identifier}", CSWPath + "/{identifier}/"} {
		r.Get(p, h.serve)
		r.Head(p, h.serve)
		r.Post(p, h.serve)
	}
}

// CSWAuthFailure answers a refused key as an ExceptionReport.
func CSWAuthFailure(w http.ResponseWriter, r *http.Request, status int, detail string) {
	writeCSWException(w, cswserver.V2, &cswserver.Exception{Status: status, Code: cswserver.CodeNoApplicableCode, Text: detail})
}

func writeCSWException(w http.ResponseWriter, version string, e *cswserver.Exception) {
	w.Header().Set("Content-Type", cswserver.ExceptionType)
	w.WriteHeader(e.Status)
	_, _ = w.Write(cswserver.ExceptionReport(version, e))
}

func (h *CSW) serve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	auth.SetAcceptedScopes(w.Header(), []string{auth.ScopeCatalog})
	req, err := parseCSWRequest(w, r)
	if err != nil {
		h.fail(w, r, req.Version, err)
		return
	}
	if err := access.RequireScope(ctx, auth.ScopeCatalog); err != nil {
		h.fail(w, r, req.Version, err)
		return
	}
	origin := h.origin
	if origin == "" {
		origin = forwarded.Origin(r)
	}
	call := cswserver.Call{Request: req, Origin: origin, Title: "Geopub catalogue",
		Endpoint: keyedURL(r, h.origin, "/csw/", true)}
	if id := chi.URLParam(r, "identifier"); id != "" {
		// A dataset's own CSW: its record only, and nothing at all for a
		// dataset the caller may not see.
		rec, err := h.record(ctx, id, origin)
		if err != nil {
			h.fail(w, r, req.Version, err)
			return
		}
		if rec == nil {
			writeCSWException(w, req.Version, &cswserver.Exception{Status: http.StatusNotFound, Code: cswserver.CodeNotFound,
				Locator: "identifier", Text: "there is no dataset " + id + " you may see"})
			return
		}
		call.Only, call.Title = rec.Identifier, rec.Title
		call.Endpoint = keyedURL(r, h.origin, "/csw/"+rec.Identifier+"/", true)
	}
	body, err := cswserver.Serve(ctx, cswSource{h}, call)
	if err != nil {
		h.fail(w, r, req.Version, err)
		return
	}
	w.Header().Set("Content-Type", cswserver.ContentType)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// record is one record, nil when there is none the caller may see.
func (h *CSW) record(ctx context.Context, id, origin string) (*catalogrecords.Record, error) {
	if _, _, ok := catalogrecords.ParseIdentifier(id); !ok {
		return nil, nil
	}
	rec, err := h.src.CatalogRecord(ctx, id, origin)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil
	}
	return rec, err
}

// cswSource is the door's records as cswserver asks for them.
type cswSource struct{ h *CSW }

func (s cswSource) Records(ctx context.Context, q catalogrecords.Query) (*catalogrecords.Page, error) {
	return s.h.src.CatalogRecords(ctx, q)
}

func (s cswSource) Record(ctx context.Context, id, origin string) (*catalogrecords.Record, error) {
	return s.h.record(ctx, id, origin)
}

// fail writes err as an ExceptionReport: the client's mistakes and the
// service's refusals with their status, anything else logged and
// answered 500 without details.
func (h *CSW) fail(w http.ResponseWriter, r *http.Request, version string, err error) {
	var e *cswserver.Exception
	if errors.As(err, &e) {
		writeCSWException(w, version, e)
		return
	}
	if u, ok := unavailable(w, err); ok {
		writeCSWException(w, version, &cswserver.Exception{Status: u.Code.HTTPStatus(), Code: cswserver.CodeNoApplicableCode, Text: u.Message})
		return
	}
	ae := apperr.As(err)
	if status := ae.Code.HTTPStatus(); status >= 400 && status < 500 {
		code := cswserver.CodeNoApplicableCode
		if status == http.StatusBadRequest {
			code = cswserver.CodeInvalidParameter
		}
		writeCSWException(w, version, &cswserver.Exception{Status: status, Code: code, Text: ae.Message})
		return
	}
	h.logger.ErrorContext(r.Context(), "csw request failed", "query", redactKey(r), "err", err)
	writeCSWException(w, version, &cswserver.Exception{Status: http.StatusInternalServerError, Code: cswserver.CodeNoApplicableCode, Text: "Internal error."})
}

// parseCSWRequest reads a GET's query, or a POST's body: KVP when it is a
// form, else an XML request document, at most MaxPostBytes of it.
func parseCSWRequest(w http.ResponseWriter, r *http.Request) (*cswserver.Request, error) {
	if r.Method != http.MethodPost {
		return cswserver.ParseKVP(withoutKey(r.URL.RawQuery))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, cswserver.MaxPostBytes+1))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || len(body) > cswserver.MaxPostBytes {
		return &cswserver.Request{Version: cswserver.V2}, cswserver.TooLarge()
	}
	if err != nil {
		return &cswserver.Request{Version: cswserver.V2}, &cswserver.Exception{Status: http.StatusBadRequest,
			Code: cswserver.CodeNoApplicableCode, Locator: "request", Text: "the request body could not be read"}
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "application/x-www-form-urlencoded" {
		return cswserver.ParseKVP(withoutKey(string(body)))
	}
	return cswserver.ParsePost(body)
}

// withoutKey drops key= parameters (the API key is not a CSW parameter).
func withoutKey(raw string) string {
	parts := strings.Split(raw, "&")
	out := parts[:0]
	for _, p := range parts {
		if !strings.HasPrefix(strings.ToLower(p), "key=") {
			out = append(out, p)
		}
	}
	return strings.Join(out, "&")
}
