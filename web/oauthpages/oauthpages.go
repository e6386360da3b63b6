// Package oauthpages is the HTTP door of Geopub's OAuth 2.0
// authorization server (internal/oauthserver), at the root of the site:
// the authorization endpoint and its consent page (/o/authorize/), the
// token endpoint (/o/token/), revocation (/o/revoke_token/, RFC 7009)
// and the metadata document (/.well-known/oauth-authorization-server,
// RFC 8414).
package oauthpages

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/oauthserver"
)

// SignInPath is the sign-in page the authorization endpoint sends
// visitors without a session to, with ?next= this request.
const SignInPath = "/signin/"

// maxFormBytes bounds the body of a token or revocation request.
const maxFormBytes = 64 << 10

// Pages serves the endpoints.
type Pages struct {
	svc     *oauthserver.Service
	auth    *auth.Service
	baseURL string
	logger  *slog.Logger
}

// New returns the door over the authorization server; sessions are read
// through authSvc. baseURL, when set, is the issuer; otherwise the
// request's own origin.
func New(svc *oauthserver.Service, authSvc *auth.Service, baseURL string, logger *slog.Logger) *Pages {
	if logger == nil {
		logger = slog.Default()
	}
	return &Pages{svc: svc, auth: authSvc, baseURL: baseURL, logger: logger}
}

// Routes adds the endpoints to r. They authenticate on their own (the
// consent form carries its CSRF token as a field, which the API's
// middleware would not read), so r needs no auth middleware.
func (p *Pages) Routes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(p.refuseDeadKeys)
		p.routes(r)
	})
}

func (p *Pages) routes(r chi.Router) {
	for _, path := range []string{oauthserver.AuthorizePath, strings.TrimSuffix(oauthserver.AuthorizePath, "/")} {
		r.Get(path, p.authorize)
		r.Post(path, p.consent)
	}
	for _, path := range []string{oauthserver.TokenPath, strings.TrimSuffix(oauthserver.TokenPath, "/")} {
		r.Post(path, p.token)
	}
	for _, path := range []string{oauthserver.RevokePath, strings.TrimSuffix(oauthserver.RevokePath, "/")} {
		r.Post(path, p.revoke)
	}
	r.Get(oauthserver.MetadataPath, p.metadata)
}

// origin is the issuer: the configured base URL, else the request's own
// origin as the trusted proxies name it.
func (p *Pages) origin(r *http.Request) string {
	if o := strings.TrimRight(p.baseURL, "/"); o != "" {
		return o
	}
	return forwarded.Origin(r)
}

func (p *Pages) metadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeJSON(w, http.StatusOK, oauthserver.MetadataFor(p.origin(r)))
}

// refuseDeadKeys answers 401 to a request presenting an API key (key or
// Bearer) that authenticates nobody: the endpoints do not use keys, but
// a dead key is refused at every door. Basic client credentials pass.
func (p *Pages) refuseDeadKeys(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if key, ok := auth.KeyFromAuthorization(r.Header.Get("Authorization")); ok {
			if _, err := p.auth.AuthenticateKey(r.Context(), key, r.Header.Get("Referer")); err != nil {
				writeJSON(w, http.StatusUnauthorized, map[string]string{"detail": err.Error()})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
