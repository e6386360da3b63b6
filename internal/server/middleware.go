package server

import (
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5/middleware"
)

// recoverJSON turns a panic into a JSON 500 and logs it with its stack.
func (s *Server) recoverJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.logger.ErrorContext(r.Context(), "handler panicked", "panic", v, "stack", string(debug.Stack()),
					"request_id", middleware.GetReqID(r.Context()))
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(`{"detail":"Internal server error."}` + "\n"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// logRequests logs one structured line per request.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		s.logger.InfoContext(r.Context(), "request",
			"method", r.Method, "path", r.URL.Path, "status", ww.Status(),
			"bytes", ww.BytesWritten(), "duration_ms", float64(time.Since(start).Microseconds())/1000,
			"request_id", middleware.GetReqID(r.Context()))
	})
}

// defaultScopeHeader gives every response an Accepted-OAuth-Scopes header:
// `*` (no scope needed) unless a route names its scope.
func defaultScopeHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Accepted-OAuth-Scopes", "*")
		next.ServeHTTP(w, r)
	})
}
