package ogc

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// pathKeyPrefix starts a URL that carries the API key as a path
// parameter: /services;key={token}/... (the form desktop clients use for
// tiles and WMTS).
const pathKeyPrefix = "/services;key="

type pathKeyCtx struct{}

// PathKey rewrites /services;key={token}/rest to /services/rest with the
// key as the first `key` query parameter, so that routes which accept
// ?key= accept the path form too, and so that the key never reaches the
// request log (which logs the path, not the query). Install it first on
// the root router. Other paths pass unchanged.
func PathKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, pathKeyPrefix) {
			next.ServeHTTP(w, r)
			return
		}
		rest := r.URL.Path[len(pathKeyPrefix):]
		key, tail, _ := strings.Cut(rest, "/")
		u := *r.URL
		u.Path, u.RawPath = "/services/"+tail, ""
		q := "key=" + url.QueryEscape(key)
		if u.RawQuery != "" {
			q += "&" + u.RawQuery
		}
		u.RawQuery = q
		r2 := r.WithContext(context.WithValue(r.Context(), pathKeyCtx{}, true))
		r2.URL = &u
		r2.RequestURI = u.RequestURI()
		next.ServeHTTP(w, r2)
	})
}

// usedPathKey reports whether the request carried its key in the path.
func usedPathKey(r *http.Request) bool {
	v, _ := r.Context().Value(pathKeyCtx{}).(bool)
	return v
}
