package auth

import (
	"context"
	"net/http"

	"github.com/geopub/geopub/internal/audit"
)

// requestFacts are what the middleware knows of a request before it
// authenticates it: where to add cookies (code without the
// http.ResponseWriter, such as a GraphQL resolver, signs users in), the
// client address and the User-Agent. They travel as one context value,
// the request's audit origin, so that every request pays one allocation
// for them.
type requestFacts struct {
	w         http.ResponseWriter
	secure    bool
	addr      string
	userAgent string // as sent; UserAgentFrom cuts it
}

// ClientAddr is the client address the audit log records.
func (f *requestFacts) ClientAddr() string { return f.addr }

// withRequestFacts returns ctx carrying the facts of a request answered
// through w.
func withRequestFacts(ctx context.Context, w http.ResponseWriter, secure bool, addr, userAgent string) context.Context {
	return audit.WithOrigin(ctx, &requestFacts{w: w, secure: secure, addr: addr, userAgent: userAgent})
}

// requestFactsFrom returns the facts the middleware stored in ctx, nil
// outside a request.
func requestFactsFrom(ctx context.Context) *requestFacts {
	f, _ := audit.OriginFrom(ctx).(*requestFacts)
	return f
}

// UserAgentFrom returns the User-Agent of the request behind ctx, cut to
// what a session keeps, or "" outside a request.
func UserAgentFrom(ctx context.Context) string {
	if f := requestFactsFrom(ctx); f != nil {
		return cutUserAgent(f.userAgent)
	}
	return ""
}
