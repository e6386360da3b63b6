package store

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/geopub/geopub/internal/apperr"
)

// Some reads hold a connection for as long as their filter takes: feature
// pages and GetFeature with filters the database cannot index, tiles drawn
// from the store. Left unbounded, enough of them at once take every pooled
// connection, and then the quick reads every request makes (who is this
// token, may they see this) and the readiness check wait behind them
// (issue 24: 150 clients on SQLite, p50 60 s, /readyz 503 throughout). So
// heavy reads share a few slots, always fewer than the pool, and wait for
// one briefly in a short queue; beyond that the caller is told the service
// is busy and when to retry, instead of joining an unbounded queue.

// heavyWait is how long a heavy read waits for a slot.
const heavyWait = 2 * time.Second

// heavyRetryAfter is the Retry-After, in seconds, of a refused heavy read.
const heavyRetryAfter = 1

// ErrBusy is the answer to a heavy read that found no slot in time.
var ErrBusy = &apperr.Error{Code: apperr.Unavailable, RetryAfter: heavyRetryAfter,
	Message: "The service is busy with other queries; retry after the Retry-After delay."}

// heavyReads is a counting semaphore with a bounded queue.
type heavyReads struct {
	slots   chan struct{}
	waiting atomic.Int32
	maxWait int32
	// several is held by a caller taking more than one slot: two such
	// callers, each holding some slots and waiting for the rest, would
	// wait for each other until both are refused.
	several chan struct{}
}

// newHeavyReads leaves two of a pool's connections to quick reads.
func newHeavyReads(pool int) *heavyReads {
	n := max(pool-2, 1)
	return &heavyReads{slots: make(chan struct{}, n), maxWait: int32(32 * n), several: make(chan struct{}, 1)}
}

// HeavyRead takes one of the slots heavy reads share, waiting briefly; the
// caller calls release when its rows are closed. It fails with ErrBusy
// when none frees up in time or too many wait already, and with the
// context's error when that ends first.
func (s *Store) HeavyRead(ctx context.Context) (release func(), err error) {
	h := s.heavy
	if h == nil {
		return func() {}, nil
	}
	release = func() { <-h.slots }
	select {
	case h.slots <- struct{}{}:
		return release, nil
	default:
	}
	if h.waiting.Add(1) > h.maxWait {
		h.waiting.Add(-1)
		return nil, ErrBusy
	}
	defer h.waiting.Add(-1)
	timer := time.NewTimer(heavyWait)
	defer timer.Stop()
	select {
	case h.slots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, ErrBusy
	}
}

// HeavyReads takes n of the slots (at most all there are) for a heavy
// read that streams on several connections at once, as HeavyRead takes
// one, and returns one release for all. Callers taking several slots
// take them one caller at a time, so none holds part of its slots while
// another holds the rest.
func (s *Store) HeavyReads(ctx context.Context, n int) (release func(), err error) {
	h := s.heavy
	if h == nil || n <= 1 {
		return s.HeavyRead(ctx)
	}
	n = min(n, cap(h.slots))
	timer := time.NewTimer(heavyWait)
	defer timer.Stop()
	select {
	case h.several <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, ErrBusy
	}
	defer func() { <-h.several }()
	var held []func()
	releaseAll := func() {
		for _, r := range held {
			r()
		}
	}
	for range n {
		r, err := s.HeavyRead(ctx)
		if err != nil {
			releaseAll()
			return nil, err
		}
		held = append(held, r)
	}
	return releaseAll, nil
}
