// Package auth establishes who is calling: password hashing (argon2id), API
// tokens (32-character keys stored only as hashes, scopes, expiry, referrer
// rules), cookie sessions with CSRF protection, throttling of wrong
// passwords, and the HTTP middleware that turns a request into a Principal.
// What a principal may do is decided by package access.
package auth

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/audit"
)

// Method is how a request was authenticated.
type Method int

// The authentication methods.
const (
	Anonymous Method = iota
	SessionAuth
	TokenAuth
)

func (m Method) String() string {
	switch m {
	case SessionAuth:
		return "session"
	case TokenAuth:
		return "token"
	default:
		return "anonymous"
	}
}

// Principal is the one identity a request resolves to.
type Principal struct {
	Method Method
	// User is nil for anonymous callers.
	User *ent.User
	// Token is the API token used, for TokenAuth.
	Token *ent.Token
	// Scopes are the token's scopes, for TokenAuth. Sessions are not
	// limited by scope.
	Scopes Scopes
	// Session is the cookie session used, for SessionAuth.
	Session *ent.Session
	// scopeHeader is Scopes as the OAuth-Scopes header gives them,
	// rendered once per token and shared: never changed in place.
	scopeHeader []string
}

// Authenticated reports whether a user is behind the request.
func (p Principal) Authenticated() bool { return p.User != nil }

// HasScope reports whether the principal may use operations needing scope.
// Only token requests are limited by scope.
func (p Principal) HasScope(scope string) bool {
	if p.Method != TokenAuth {
		return true
	}
	return p.Scopes.Has(scope)
}

// IsSiteAdmin reports whether the caller is a site administrator.
func (p Principal) IsSiteAdmin() bool { return p.User != nil && p.User.IsSiteAdmin }

type principalKey struct{}

// WithPrincipal returns ctx carrying p, who is also the actor of the
// changes made in ctx (named only when one is recorded).
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	pp := &p
	return audit.WithActorSource(context.WithValue(ctx, principalKey{}, pp), (*principalActor)(pp))
}

// FromContext returns the principal of the request, anonymous when none was
// set.
func FromContext(ctx context.Context) Principal {
	if p, _ := ctx.Value(principalKey{}).(*Principal); p != nil {
		return *p
	}
	return Principal{}
}
