package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/textrules"
)

// handlerFunc is a REST handler: it writes a success response itself or
// returns an error for handle to render.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc, rendering its error.
func (a *API) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			a.writeError(w, r, err)
		}
	}
}

var errNoRoute = apperr.New(apperr.NotFound, "Not found.")

func errMethod(r *http.Request) error {
	return apperr.New(apperr.NotAllowed, "Method \"%s\" not allowed.", r.Method)
}

// writeError renders err in the one error shape, {"detail": message,
// "code": apperr code} (the OpenAPI component Error), except where the
// body is one existing clients or the specification state: the field map
// for validation errors naming fields, {"error": message} for the
// document-version cases. Internal errors are logged and shown only as
// "Internal server error.".
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := apperr.As(err)
	if e.Code == apperr.Internal {
		a.logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	var body any = map[string]string{"detail": e.Message, "code": string(e.Code)}
	if len(e.Fields) > 0 {
		body = e.Fields
	}
	var eb errorBody
	if errors.As(err, &eb) {
		body = map[string]string{"error": e.Message}
	}
	writeJSON(w, e.Code.HTTPStatus(), body)
}

// writeJSON writes v as the JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// noContent writes 204.
func noContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

// maxBody bounds JSON and form request bodies.
const maxBody = 1 << 20

// limitBody caps what may be read of r's body at max bytes: a read past
// it fails with *http.MaxBytesError, which bodyError turns into a 413.
// Bodies announcing a larger Content-Length fail at once, unread.
func limitBody(r *http.Request, max int64) error {
	if r.ContentLength > max {
		return tooLarge(max)
	}
	r.Body = http.MaxBytesReader(nil, r.Body, max)
	return nil
}

// bodyError is the error of a failed body read: 413 past the cap, else
// nil (the caller reports its own problem).
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(mbe.Limit)
	}
	return nil
}

// tooLarge is the 413 of a body over max bytes.
func tooLarge(max int64) error {
	return apperr.New(apperr.TooLarge, "The request body is larger than the %s limit of this endpoint.", apperr.ByteSize(max))
}

// decodeJSON reads a JSON body into v. Unknown fields are ignored, as
// existing clients send whole representations back.
func decodeJSON(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return apperr.New(apperr.Invalid, "Unsupported media type \"%s\": send application/json.", ct)
		}
	}
	if err := limitBody(r, maxBody); err != nil {
		return err
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		if tl := bodyError(err); tl != nil {
			return tl
		}
		return apperr.New(apperr.Invalid, "Reading the request body failed: %v", err)
	}
	// Refuse an unpaired surrogate escape before the decoder replaces it.
	if err := textrules.CheckJSON(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		if tl := bodyError(err); tl != nil {
			return tl
		}
		if errors.Is(err, io.EOF) {
			return apperr.New(apperr.Invalid, "The request body is empty: send a JSON object.")
		}
		return apperr.New(apperr.Invalid, "JSON parse error - %s", jsonProblem(err))
	}
	return nil
}

// decodeOptionalJSON is decodeJSON for bodies clients may leave out: an
// empty body leaves v as it is.
func decodeOptionalJSON(r *http.Request, v any) error {
	if err := limitBody(r, maxBody); err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if tl := bodyError(err); tl != nil {
			return tl
		}
		return apperr.New(apperr.Invalid, "Reading the request body failed: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return decodeJSON(r, v)
}

func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%s: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		return fmt.Sprintf("expected %s, got %s", te.Type, te.Value)
	}
	return err.Error()
}

// decodeForm reads an application/x-www-form-urlencoded body.
func decodeForm(r *http.Request) (url.Values, error) {
	if err := limitBody(r, maxBody); err != nil {
		return nil, err
	}
	if err := r.ParseForm(); err != nil {
		if tl := bodyError(err); tl != nil {
			return nil, tl
		}
		return nil, apperr.New(apperr.Invalid, "Could not read the form body: %s", err)
	}
	return r.PostForm, nil
}
