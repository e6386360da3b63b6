package sso

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
)

// Limits of a sign-in under way.
const (
	// LoginTTL is how long the browser has to come back from the provider.
	LoginTTL = 10 * time.Minute
	// ClockSkew is the tolerance on an ID token's expiry and issue time.
	ClockSkew = time.Minute
	// discoveryRetry is how long a failed discovery is remembered before
	// the next sign-in tries again.
	discoveryRetry = 10 * time.Second
)

// Service runs OIDC sign-ins against the configured providers.
type Service struct {
	client    *ent.Client
	tx        audit.Transactor
	logger    *slog.Logger
	http      *http.Client
	now       func() time.Time
	providers []*provider
	byName    map[string]*provider
}

// Options are the Service's collaborators; zero values take defaults.
type Options struct {
	// HTTPClient talks to the providers; default one with a 15 s timeout.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Now is the clock ID tokens are checked against (tests).
	Now func() time.Time
}

// New returns a Service for cfg's providers (cfg as LoadConfig leaves it).
// Providers are discovered on first use, not here, so a provider that is
// down does not stop Geopub from starting. Sign-ins write users, links
// and memberships in tx's transactions (the store: store.Store).
func New(client *ent.Client, tx audit.Transactor, cfg Config, opts Options) *Service {
	s := &Service{client: client, tx: tx, logger: opts.Logger, http: opts.HTTPClient, now: opts.Now, byName: map[string]*provider{}}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if s.http == nil {
		s.http = &http.Client{Timeout: 15 * time.Second}
	}
	if s.now == nil {
		s.now = time.Now
	}
	for _, pc := range cfg.Providers {
		p := &provider{cfg: pc}
		s.providers = append(s.providers, p)
		s.byName[pc.Name] = p
	}
	return s
}

// ProviderInfo is what the sign-in page and API clients see of a provider.
type ProviderInfo struct {
	Name  string
	Title string
	// StartPath is where a browser begins signing in with it.
	StartPath string
}

// Providers lists the configured providers in configuration order.
func (s *Service) Providers() []ProviderInfo {
	if s == nil {
		return nil
	}
	out := make([]ProviderInfo, 0, len(s.providers))
	for _, p := range s.providers {
		out = append(out, ProviderInfo{Name: p.cfg.Name, Title: p.cfg.Title, StartPath: StartPath(p.cfg.Name)})
	}
	return out
}

// StartPath is the path that starts a sign-in with provider name.
func StartPath(name string) string { return "/auth/oidc/" + name + "/start" }

// CallbackPath is the path the provider sends the browser back to.
func CallbackPath(name string) string { return "/auth/oidc/" + name + "/callback" }

// provider is one configured provider and, once discovered, its endpoints
// and ID token verifier.
type provider struct {
	cfg ProviderConfig

	mu       sync.Mutex
	oidc     *oidc.Provider
	failedAt time.Time
	lastErr  error
}

// lookup returns the provider called name.
func (s *Service) lookup(name string) (*provider, error) {
	if s == nil {
		return nil, apperr.New(apperr.NotFound, "No identity provider is configured.")
	}
	p := s.byName[name]
	if p == nil {
		return nil, apperr.New(apperr.NotFound, "There is no identity provider called %q.", name)
	}
	return p, nil
}

// discover reads the provider's discovery document once; a failure is
// retried by a later sign-in. The key set go-oidc builds refetches the
// provider's JWKS when a token names a key it does not hold (rotation).
func (s *Service) discover(p *provider) (*oidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.oidc != nil {
		return p.oidc, nil
	}
	if !p.failedAt.IsZero() && s.now().Sub(p.failedAt) < discoveryRetry {
		return nil, p.lastErr
	}
	// The key set keeps this context for its later fetches: it must
	// outlive the request, and the client's timeout bounds each call.
	op, err := oidc.NewProvider(oidc.ClientContext(context.Background(), s.http), p.cfg.Issuer)
	if err != nil {
		p.failedAt, p.lastErr = s.now(), apperr.Wrap(err, apperr.Unavailable,
			"The identity provider "+p.cfg.Title+" cannot be reached. Try again later.")
		return nil, p.lastErr
	}
	p.oidc = op
	return op, nil
}
