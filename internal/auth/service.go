package auth

import (
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
)

// Config tunes sessions and throttling. Zero values take the defaults.
type Config struct {
	// SessionTTL is how long a cookie session lasts; default 14 days.
	SessionTTL time.Duration
	// SecureCookies marks cookies Secure (set when served over HTTPS).
	SecureCookies bool
	// MaxFailures is how many sign-in attempts one client address may make
	// on one account before each further attempt must wait (429 with
	// Retry-After); default 5. AddrMaxFailures is the same across every
	// account for one client address, default 20; AccountMaxFailures across
	// every address for one account, default 100, and it holds back only
	// addresses that have failed on the account (see throttle.go).
	MaxFailures        int
	AddrMaxFailures    int
	AccountMaxFailures int
	// ThrottleDelay is the first wait once a limit is reached, doubling
	// with each further attempt up to MaxThrottleDelay; defaults 30 seconds
	// and 15 minutes.
	ThrottleDelay    time.Duration
	MaxThrottleDelay time.Duration
	// FailureWindow is how long after its last attempt (or the end of its
	// last wait) a throttling count is forgotten; default 15 minutes.
	FailureWindow time.Duration
	// KeyCacheTTL is how long the middleware reuses a checked API key
	// without reading it again (a change to any token, user or session
	// ends it at once); default one second, negative for never.
	KeyCacheTTL time.Duration
	// StreamRecheck is how often the credentials of open streams are
	// read again (see Watch); default DefaultStreamRecheck.
	StreamRecheck time.Duration
}

// Service authenticates requests and manages passwords, tokens and
// sessions against the database.
type Service struct {
	client *ent.Client
	// tx runs the audited writes (tokens, sessions) in the store's
	// transactions.
	tx   audit.Transactor
	cfg  Config
	now  func() time.Time
	keys keyCache
	// streams are the open streams whose credentials Watch rechecks.
	streams streamWatch
}

// NewService returns a Service over client, writing audited changes in
// tx's transactions (the store client belongs to: store.Store).
func NewService(client *ent.Client, tx audit.Transactor, cfg Config) *Service {
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = 14 * 24 * time.Hour
	}
	if cfg.MaxFailures == 0 {
		cfg.MaxFailures = 5
	}
	if cfg.AddrMaxFailures == 0 {
		cfg.AddrMaxFailures = 4 * cfg.MaxFailures
	}
	if cfg.AccountMaxFailures == 0 {
		cfg.AccountMaxFailures = 20 * cfg.MaxFailures
	}
	if cfg.ThrottleDelay == 0 {
		cfg.ThrottleDelay = 30 * time.Second
	}
	if cfg.MaxThrottleDelay == 0 {
		cfg.MaxThrottleDelay = 15 * time.Minute
	}
	if cfg.FailureWindow == 0 {
		cfg.FailureWindow = 15 * time.Minute
	}
	if cfg.KeyCacheTTL == 0 {
		cfg.KeyCacheTTL = time.Second
	}
	if cfg.StreamRecheck <= 0 {
		cfg.StreamRecheck = DefaultStreamRecheck
	}
	dummyHash() // compute it now, so the first unknown-user sign-in is not faster
	return &Service{client: client, tx: tx, cfg: cfg, now: time.Now, keys: keyCache{ttl: cfg.KeyCacheTTL}}
}

// clock returns the current time in UTC, the zone every stored timestamp
// uses (SQLite compares timestamps as text, so zones must not vary).
func (s *Service) clock() time.Time { return s.now().UTC() }

// internalErr hides an unexpected error (database, RNG) from the caller; it
// is kept as the cause for logs.
func internalErr(err error) error {
	return apperr.Wrap(err, apperr.Internal, "Internal server error.")
}
