package server

import (
	"net/http"
	"strings"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/ratelimit"
)

// restPrefix is where the REST API is mounted, before its version.
const restPrefix = "/services/api/"

// restClass classes a REST request by its first path segment after the
// version, and its method: the catalogue (/data) is search, /exports
// exports, the rest reads (GET, HEAD, OPTIONS) or writes. It reads the
// path with string cuts, without allocating.
func restClass(r *http.Request) ratelimit.Class {
	_, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, restPrefix), "/")
	seg, _, _ := strings.Cut(rest, "/")
	switch seg {
	case "data":
		return ratelimit.Search
	case "exports":
		return ratelimit.Exports
	}
	return methodClass(r)
}

// methodClass is the class of a request by its method alone: reads for
// GET, HEAD and OPTIONS, writes for the rest (the OAuth endpoints).
func methodClass(r *http.Request) ratelimit.Class {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return ratelimit.Reads
	}
	return ratelimit.Writes
}

// corsFailure answers a refusal on routes that maps of any origin read
// (tiles, tile archives) with their CORS headers, so that the map's
// script sees the 429 and its headers rather than a network error.
func corsFailure(w http.ResponseWriter, r *http.Request, status int, detail string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", ratelimit.ExposeHeaders)
	auth.WriteFailure(w, r, status, detail)
}
