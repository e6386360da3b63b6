package server

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// DefaultRequestTimeout is the time budget of one request's work.
const DefaultRequestTimeout = 30 * time.Second

// budget gives each request a deadline after which its work is cancelled:
// the store's statement is interrupted (SQLite) or cancelled (PostgreSQL),
// filters tested in Go stop with their rows, and the door answers the
// timeout as a 504 with a message (apperr.TimedOut), never a 500. A
// filter that would otherwise run for minutes, anonymously, on a public
// layer, ends when its budget does (issue 24).
//
// Requests whose length is the client's to choose are left out: streams
// (websocket upgrades and text/event-stream subscriptions) and, through
// skip, downloads and uploads.
func budget(d time.Duration, skip func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if d <= 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if streams(r) || (skip != nil && skip(r)) {
				next.ServeHTTP(w, r)
				return
			}
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// streams reports whether r opens a stream that lasts as long as the
// client wants it.
func streams(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") ||
		strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// transfers reports whether r moves a file whose size sets its length:
// REST downloads, and writes (uploads among them, and writes must not be
// cut between their steps).
func transfers(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return true
	}
	return strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/download")
}

// uploads reports whether r carries files (GraphQL's multipart requests).
func uploads(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/")
}
