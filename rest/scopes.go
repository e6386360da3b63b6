package rest

import (
	"net/http"
)

// scoped names, in the Accepted-OAuth-Scopes response header, the scope a
// route needs: read for safe methods, write for the others. The resolvers
// enforce it; the header tells clients.
func scoped(read, write string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			scope := write
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				scope = read
			}
			w.Header().Set("Accepted-OAuth-Scopes", scope)
			next.ServeHTTP(w, r)
		})
	}
}
