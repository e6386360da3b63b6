// Package oauthserver is Geopub's OAuth 2.0 authorization server for its
// own API (RFC 6749 with PKCE, RFC 7636): the clients site administrators
// register, the authorization code grant with a consent step, refresh
// tokens with rotation, revocation (RFC 7009) and the server's metadata
// (RFC 8414). The access tokens it issues are ordinary Geopub API tokens
// (package auth): the same scopes, expiry, revocation and middleware,
// linked to the grant they came from.
package oauthserver

import (
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/store"
)

// Config tunes lifetimes. Zero values take the defaults.
type Config struct {
	// CodeTTL is how long an authorization code may be exchanged;
	// default one minute (RFC 6749 §4.1.2 advises at most ten).
	CodeTTL time.Duration
	// AccessTokenTTL is the life of an access token; default one hour.
	AccessTokenTTL time.Duration
	// RefreshTokenTTL is the life of a refresh token, renewed with each
	// rotation; default 30 days.
	RefreshTokenTTL time.Duration
}

// Default lifetimes.
const (
	DefaultCodeTTL         = time.Minute
	DefaultAccessTokenTTL  = time.Hour
	DefaultRefreshTokenTTL = 30 * 24 * time.Hour
)

// Service is the authorization server over the store.
type Service struct {
	store  *store.Store
	client *ent.Client
	auth   *auth.Service
	cfg    Config
	now    func() time.Time
}

// New returns the authorization server; tokens are made by authSvc.
func New(st *store.Store, authSvc *auth.Service, cfg Config) *Service {
	if cfg.CodeTTL <= 0 {
		cfg.CodeTTL = DefaultCodeTTL
	}
	if cfg.AccessTokenTTL <= 0 {
		cfg.AccessTokenTTL = DefaultAccessTokenTTL
	}
	if cfg.RefreshTokenTTL <= 0 {
		cfg.RefreshTokenTTL = DefaultRefreshTokenTTL
	}
	return &Service{store: st, client: st.Client, auth: authSvc, cfg: cfg, now: time.Now}
}

// clock is the current time in UTC, as every stored timestamp.
func (s *Service) clock() time.Time { return s.now().UTC() }

// Lifetimes returns the configuration in force.
func (s *Service) Lifetimes() Config { return s.cfg }
