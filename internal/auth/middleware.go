package auth

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/internal/apperr"
)

// Header names the middleware reads or writes.
const (
	// HeaderAcceptedScopes names the scope a route needs; the middleware
	// sets "*" and routes overwrite it.
	HeaderAcceptedScopes = "Accepted-OAuth-Scopes"
	// HeaderTokenScopes lists the scopes of the token a request used.
	HeaderTokenScopes = "OAuth-Scopes"
	// CSRFHeader must carry the session's CSRF token on unsafe requests
	// authenticated by the session cookie.
	CSRFHeader = "X-CSRF-Token"
)

// The scope headers as set on every response, without Header.Set's
// canonicalisation and allocation; the values are shared, never changed
// in place.
var (
	canonicalAcceptedScopes = http.CanonicalHeaderKey(HeaderAcceptedScopes)
	canonicalTokenScopes    = http.CanonicalHeaderKey(HeaderTokenScopes)
	// AnyScope is the Accepted-OAuth-Scopes value of a route that needs
	// no scope.
	AnyScope = []string{"*"}
)

// SetAcceptedScopes names the scopes a route needs (HeaderAcceptedScopes)
// as value, which is shared between responses and never changed in place:
// no canonicalisation or allocation per response.
func SetAcceptedScopes(h http.Header, value []string) { h[canonicalAcceptedScopes] = value }

// lastUsedGranularity is how stale a token's last_used_at may get before a
// request rewrites it, so busy tokens do not cost a write per request.
const lastUsedGranularity = time.Minute

// Middleware resolves every request to a Principal (see FromContext):
//
//   - "Authorization: key <token>" or "Authorization: Bearer <token>"
//     (scheme case-insensitive) authenticates with an API token. Unknown
//     and expired tokens and locked users get 401, a Referer outside the
//     token's rules 403, each with a JSON {"detail": ...} body. The response
//     gets OAuth-Scopes with the token's scopes.
//   - Otherwise the session cookie authenticates. A missing, expired or
//     unknown session (or a locked user) makes the request anonymous and
//     clears the cookie. Unsafe methods (all but GET, HEAD, OPTIONS, TRACE)
//     must carry X-CSRF-Token equal to the session's CSRF token, else 403.
//     Token and anonymous requests are not CSRF-checked: browsers never add
//     an Authorization header on their own.
//   - Otherwise the request is anonymous.
//
// Every response gets "Accepted-OAuth-Scopes: *" for routes to overwrite.
// The context also carries the client address (ClientAddrFrom) and the
// response hook used by SetSessionCookie and ClearSessionCookie.
func (s *Service) Middleware(next http.Handler) http.Handler {
	return s.middleware(next, false)
}

// MiddlewareWithKeyParam is Middleware that also accepts the token as the
// `key` query parameter, for the point-query APIs only (a key in a URL ends
// up in logs and histories, so other routes refuse it). The Authorization
// header wins when both are given.
func (s *Service) MiddlewareWithKeyParam(next http.Handler) http.Handler {
	return s.middleware(next, true)
}

// FailureWriter answers a request whose credentials the middleware
// refused (an unknown, expired or locked key, a wrong referrer) with
// status and the message detail.
type FailureWriter func(w http.ResponseWriter, r *http.Request, status int, detail string)

// WriteFailure is the middleware's own FailureWriter: the REST error body
// {"detail": "..."}.
func WriteFailure(w http.ResponseWriter, _ *http.Request, status int, detail string) {
	writeDetail(w, status, detail)
}

// KeyParamMiddleware is MiddlewareWithKeyParam whose refusals are written
// by fail, so that an API can answer them in its own format (the point
// queries answer JSONP requests' errors with 200 and a string).
func (s *Service) KeyParamMiddleware(fail FailureWriter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler { return s.middlewareFailing(next, true, fail) }
}

// failure is an authentication failure the middleware answers itself.
type failure struct {
	status int
	detail string
	// retryAfter, in seconds, is sent as Retry-After when positive.
	retryAfter int
}

// storeFailure is the failure of a credential lookup the store could not
// answer: an internal error, or 503 with Retry-After when the database is
// out of reach (apperr's one mapping of errors).
func storeFailure(err error) *failure {
	e := apperr.As(err)
	if e.Code != apperr.Unavailable {
		return &failure{status: http.StatusInternalServerError, detail: "Internal server error."}
	}
	return &failure{status: e.Code.HTTPStatus(), detail: e.Message, retryAfter: e.RetryAfter}
}

func (s *Service) middleware(next http.Handler, keyParam bool) http.Handler {
	return s.middlewareFailing(next, keyParam, WriteFailure)
}

func (s *Service) middlewareFailing(next http.Handler, keyParam bool, fail FailureWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		SetAcceptedScopes(h, AnyScope)
		ctx := withRequestFacts(r.Context(), w, s.cfg.SecureCookies, s.clientAddr(r), r.UserAgent())
		p, f := s.authenticate(ctx, r, keyParam)
		if f != nil {
			if f.retryAfter > 0 {
				h.Set("Retry-After", strconv.Itoa(f.retryAfter))
			}
			fail(w, r, f.status, f.detail)
			return
		}
		if p.Method == TokenAuth {
			h[canonicalTokenScopes] = p.scopeHeader
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(ctx, p)))
	})
}

// authenticate picks the credentials of r and checks them.
func (s *Service) authenticate(ctx context.Context, r *http.Request, keyParam bool) (Principal, *failure) {
	if key, ok := requestKey(r, keyParam); ok {
		// Every door reuses a key checked within the last KeyCacheTTL:
		// a client asking many times a second costs one read. A change
		// to a token, user or session forgets the cache at once
		// (freshcache), in every process.
		return s.authenticateToken(ctx, r, key, true)
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		return s.authenticateSession(ctx, r, c.Value)
	}
	return Principal{}, nil
}

// requestKey returns the API key r presents, if any. Authorization headers
// of other schemes (Basic, ...) are ignored.
func requestKey(r *http.Request, keyParam bool) (string, bool) {
	if key, ok := KeyFromAuthorization(r.Header.Get("Authorization")); ok {
		return key, true
	}
	if keyParam {
		return queryParam(r.URL.RawQuery, "key")
	}
	return "", false
}

// queryParam returns the first value of a query parameter without parsing
// the whole query string (point queries read the rest themselves).
func queryParam(raw, name string) (string, bool) {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k != name {
			if !strings.ContainsAny(k, "%+") {
				continue
			}
			if uk, err := url.QueryUnescape(k); err != nil || uk != name {
				continue
			}
		}
		if !strings.ContainsAny(v, "%+") {
			return v, true
		}
		uv, err := url.QueryUnescape(v)
		return uv, err == nil
	}
	return "", false
}

// authenticateToken checks an API key and returns its principal. With
// cached, a key checked within the key cache's lifetime is not read again.
func (s *Service) authenticateToken(ctx context.Context, r *http.Request, key string, cached bool) (Principal, *failure) {
	if !wellFormedKey(key) {
		return Principal{}, &failure{status: http.StatusUnauthorized, detail: "Invalid token."}
	}
	now := s.clock()
	sum := keySum(key)
	e, hit := s.keys.get(sum, now)
	if !cached || !hit {
		tok, err := s.client.Token.Query().Where(token.KeyHash(hashText(sum))).WithUser().Only(ctx)
		if ent.IsNotFound(err) {
			return Principal{}, &failure{status: http.StatusUnauthorized, detail: "Invalid token."}
		}
		if err != nil {
			return Principal{}, storeFailure(err)
		}
		s.touchToken(ctx, tok, now)
		e = entryOf(tok, now)
		if cached {
			s.keys.put(sum, e)
		}
	}
	tok := e.tok
	switch {
	case tok.ExpiresAt != nil && !tok.ExpiresAt.After(now):
		return Principal{}, &failure{status: http.StatusUnauthorized, detail: "Token has expired."}
	case tok.Edges.User == nil || tok.Edges.User.IsLocked:
		return Principal{}, &failure{status: http.StatusUnauthorized, detail: msgAccountLocked}
	case !ReferrerAllowed(tok.Referrers, r.Header.Get("Referer")):
		return Principal{}, &failure{status: http.StatusForbidden, detail: "This token may not be used from this referrer."}
	}
	return Principal{Method: TokenAuth, User: tok.Edges.User, Token: tok, Scopes: e.scopes, scopeHeader: e.header}, nil
}

// touchToken records that tok was used, at most once per
// lastUsedGranularity. The update is conditional so that concurrent
// requests on several processes do not all write. Failures are ignored:
// the timestamp is informational and must not fail the request.
func (s *Service) touchToken(ctx context.Context, tok *ent.Token, now time.Time) {
	if tok.LastUsedAt != nil && now.Sub(*tok.LastUsedAt) < lastUsedGranularity {
		return
	}
	stale := now.Add(-lastUsedGranularity)
	err := s.client.Token.Update().
		Where(token.ID(tok.ID), token.Or(token.LastUsedAtIsNil(), token.LastUsedAtLTE(stale))).
		SetLastUsedAt(now).
		Exec(ctx)
	if err == nil {
		tok.LastUsedAt = &now
	}
}

// authenticateSession checks a session cookie value (and, on unsafe
// methods, the CSRF header) and returns its principal.
func (s *Service) authenticateSession(ctx context.Context, r *http.Request, value string) (Principal, *failure) {
	sess, err := s.lookupSession(ctx, value)
	if err != nil {
		return Principal{}, storeFailure(err)
	}
	if sess == nil {
		_ = ClearSessionCookie(ctx) // the hook is always present here
		return Principal{}, nil
	}
	s.touchSession(ctx, sess, s.clock())
	if !safeMethod(r.Method) {
		got := r.Header.Get(CSRFHeader)
		if got == "" {
			return Principal{}, &failure{status: http.StatusForbidden, detail: "CSRF Failed: CSRF token missing."}
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(sess.CsrfToken)) != 1 {
			return Principal{}, &failure{status: http.StatusForbidden, detail: "CSRF Failed: CSRF token incorrect."}
		}
	}
	return Principal{Method: SessionAuth, User: sess.Edges.User, Session: sess}, nil
}

// safeMethod reports whether method is one that must not change state.
func safeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}
