package webhooks

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/store"
)

// Enqueuer enqueues a job in a transaction of store.InTx (jobs.Jobs).
type Enqueuer interface {
	InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error)
}

// DefaultDelays are the waits before each retry of a failed attempt: eight
// attempts over about 27 hours, as Standard Webhooks suggests.
var DefaultDelays = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Service registers endpoints and delivers events to them.
type Service struct {
	Store   *store.Store
	Jobs    Enqueuer
	Guard   *fetch.Guard
	Secrets *secrets.Box
	Notify  *notify.Hub
	Logger  *slog.Logger
	// API and Site are the roots of the URLs payloads carry
	// (https://example.org/services/api/v1.x/ and https://example.org/).
	API, Site string
	// Delays are the waits before each retry (DefaultDelays when nil).
	Delays []time.Duration
	// DisableAfter is how long an endpoint's deliveries may fail for good,
	// none delivered, before it is disabled (5 days when zero).
	DisableAfter time.Duration
	// Timeout bounds one attempt, connection to answer (15 s when zero).
	Timeout time.Duration
	// RotationOverlap is how long a rotated secret keeps signing (a day
	// when zero).
	RotationOverlap time.Duration
}

// Install makes s deliver the events f appends.
func (s *Service) Install(f *changefeed.Feed) { f.OnAppend(s.fanOut) }

func (s *Service) delays() []time.Duration {
	if s.Delays != nil {
		return s.Delays
	}
	return DefaultDelays
}

func (s *Service) disableAfter() time.Duration {
	if s.DisableAfter > 0 {
		return s.DisableAfter
	}
	return 5 * 24 * time.Hour
}

func (s *Service) overlap() time.Duration {
	if s.RotationOverlap > 0 {
		return s.RotationOverlap
	}
	return 24 * time.Hour
}

// client sends attempts: through the guard's dialer, never following
// redirects (a redirect is an answer that is not 2xx).
func (s *Service) client() *http.Client {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	return &http.Client{
		Timeout:       timeout,
		Transport:     &http.Transport{DialContext: s.Guard.Dialer().DialContext, Proxy: nil, MaxIdleConnsPerHost: 2},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
