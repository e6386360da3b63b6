package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/geopub/geopub/internal/auth"
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
				_, _ = w.Write([]byte(`{"detail":"Internal server error.","code":"INTERNAL_SERVER_ERROR"}` + "\n"))
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
		if !s.logger.Enabled(r.Context(), slog.LevelInfo) {
			return
		}
		s.logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", ww.Status()),
			slog.Int("bytes", ww.BytesWritten()), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("request_id", middleware.GetReqID(r.Context())))
	})
}

// defaultScopeHeader gives every response an Accepted-OAuth-Scopes header:
// `*` (no scope needed) unless a route names its scope.
func defaultScopeHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.SetAcceptedScopes(w.Header(), auth.AnyScope)
		next.ServeHTTP(w, r)
	})
}

// requestIDs numbers requests for the logs: a prefix unique to the
// process, then a counter.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &requestIDs{prefix: host + "/" + base64.RawURLEncoding.EncodeToString(b[:]) + "-"}
}

// middleware gives each request an ID, as chi's middleware.RequestID does
// (the client's X-Request-Id when it sends one; read with
// middleware.GetReqID), without formatting through fmt.
func (ids *requestIDs) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(middleware.RequestIDHeader)
		if id == "" {
			var buf [64]byte
			id = string(strconv.AppendUint(append(buf[:0], ids.prefix...), ids.n.Add(1), 10))
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), middleware.RequestIDKey, id)))
	})
}
