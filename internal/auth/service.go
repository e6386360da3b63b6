package auth

import (
	"time"

	"github.com/geopub/geopub/ent"
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
}

// Service authenticates requests and manages passwords, tokens and
// sessions against the database.
type Service struct {
	client *ent.Client
	cfg    Config
	now    func() time.Time
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
	return &Service{client: client, cfg: cfg, now: func() time.Time { return time.Now().UTC() }}
}
