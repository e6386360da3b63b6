package ratelimit

import (
	"net/http"
	"net/netip"

	"github.com/geopub/geopub/internal/auth"
)

// FailureWriter answers a refused request in the door's own error format
// (auth.FailureWriter's shape: the REST {"detail": ...}, an OWS exception
// report, Esri's error JSON).
type FailureWriter func(w http.ResponseWriter, r *http.Request, status int, detail string)

// Classifier gives the class of a request on routes whose class depends
// on the method or the path (the REST API); it must not allocate.
type Classifier func(r *http.Request) Class

// Fixed is the middleware of a group of routes of one class. It runs
// after the authentication middleware, whose principal it counts by. When
// the class has no policy the routes are left as they are.
func (l *Limiter) Fixed(c Class, fail FailureWriter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if !l.Limits(c) {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if preflight(r) || l.admit(w, r, c, fail) {
				next.ServeHTTP(w, r)
			}
		})
	}
}

// By is the middleware of routes classed by classify.
func (l *Limiter) By(classify Classifier, fail FailureWriter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if l == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c := classify(r); !l.Limits(c) || preflight(r) || l.admit(w, r, c, fail) {
				next.ServeHTTP(w, r)
			}
		})
	}
}

// admit counts r in its bucket of class c, sets the headers, and answers
// 429 itself when the quota is spent.
func (l *Limiter) admit(w http.ResponseWriter, r *http.Request, c Class, fail FailureWriter) bool {
	k := keyOf(r, c)
	d := l.Take(k, l.now())
	p := l.policies[c]
	p.setHeaders(w.Header(), k, d)
	if !d.Allowed {
		fail(w, r, http.StatusTooManyRequests, p.detail)
	}
	return d.Allowed
}

// keyOf is the bucket of r: its token, its user's sessions or its client
// address.
func keyOf(r *http.Request, c Class) Key {
	p := auth.FromContext(r.Context())
	switch {
	case p.Method == auth.TokenAuth && p.Token != nil:
		return TokenKey(c, p.Token.ID)
	case p.User != nil:
		return UserKey(c, p.User.ID)
	}
	a, err := netip.ParseAddr(auth.ClientAddr(r))
	if err != nil {
		// A peer without an IP address (a Unix socket): one bucket.
		a = netip.IPv6Unspecified()
	}
	return AddrKey(c, a)
}

// preflight reports whether r is a CORS preflight request: the browser's
// question before the request, which counts when it comes.
func preflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}
