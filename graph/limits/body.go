package limits

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/geopub/geopub/internal/apperr"
)

// Body is HTTP middleware for the GraphQL endpoint that reads a request
// body of at most MaxBodyBytes before the handler sees it. A larger body
// is answered 413 at once: from its Content-Length without reading a byte,
// or as soon as the cap is passed when the length is not announced. The
// answer is a GraphQL error response with extensions.code
// PAYLOAD_TOO_LARGE.
func (l Limits) Body(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		max := l.MaxBodyBytes
		if max <= 0 || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > max {
			l.tooLarge(w, r)
			return
		}
		var buf bytes.Buffer
		if r.ContentLength > 0 {
			buf.Grow(int(r.ContentLength))
		}
		_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, max))
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			l.tooLarge(w, r)
			return
		case err != nil:
			writeError(w, http.StatusBadRequest, "The request body could not be read.", CodeBadRequest)
			return
		}
		r.Body = io.NopCloser(&buf)
		next.ServeHTTP(w, r)
	})
}

// tooLarge answers 413 and closes the connection, so that the rest of an
// oversized body is not read.
func (l Limits) tooLarge(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusRequestEntityTooLarge,
		fmt.Sprintf("The request body is larger than the %s limit of the GraphQL endpoint.", apperr.ByteSize(l.MaxBodyBytes)), CodeBodyTooLarge)
}

// writeError writes a GraphQL response holding one error.
func writeError(w http.ResponseWriter, status int, message, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"errors": []any{map[string]any{"message": message, "extensions": map[string]any{"code": code}}},
	})
}
