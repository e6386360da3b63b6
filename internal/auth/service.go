package auth

import (
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
)

// Config tunes sessions and throttling. Zero values take the defaults.
type Config struct {
	// SessionTTL is how long a cookie session lasts; default 14 days.
	SessionTTL time.Duration
	// SecureCookies marks cookies Secure (set when served over HTTPS).
	SecureCookies bool
	// MaxFailures is how many wrong passwords per e-mail address or client
	// address are allowed within FailureWindow before further attempts are
	// refused with 429 until the window ends; defaults 5 and 15 minutes.
	MaxFailures   int
	FailureWindow time.Duration
	// TrustProxy makes ClientAddr take the client address from the last
	// X-Forwarded-For entry, i.e. the one added by the reverse proxy in
	// front of the service. Set it only behind exactly one such proxy:
	// otherwise clients could choose their own address and dodge the
	// per-address throttle.
	TrustProxy bool
	// KeyCacheTTL is how long the point-query middleware reuses a checked
	// API key without reading it again; default one second, negative for
	// never.
	KeyCacheTTL time.Duration
}

// Service authenticates requests and manages passwords, tokens and
// sessions against the database.
type Service struct {
	client *ent.Client
	cfg    Config
	now    func() time.Time
	keys   keyCache
}

// NewService returns a Service over client.
func NewService(client *ent.Client, cfg Config) *Service {
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = 14 * 24 * time.Hour
	}
	if cfg.MaxFailures == 0 {
		cfg.MaxFailures = 5
	}
	if cfg.FailureWindow == 0 {
		cfg.FailureWindow = 15 * time.Minute
	}
	if cfg.KeyCacheTTL == 0 {
		cfg.KeyCacheTTL = time.Second
	}
	dummyHash() // compute it now, so the first unknown-user sign-in is not faster
	return &Service{client: client, cfg: cfg, now: time.Now, keys: keyCache{ttl: cfg.KeyCacheTTL}}
}

// clock returns the current time in UTC, the zone every stored timestamp
// uses (SQLite compares timestamps as text, so zones must not vary).
func (s *Service) clock() time.Time { return s.now().UTC() }

// internalErr hides an unexpected error (database, RNG) from the caller; it
// is kept as the cause for logs.
func internalErr(err error) error {
	return apperr.Wrap(err, apperr.Internal, "Internal server error.")
}
