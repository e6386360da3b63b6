package fetch

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// watchdog cancels its context with ErrStalled when too little progress
// is reported for stall: the progress timeout of a download, which the
// total budget (a context deadline) cannot replace. Progress is at least
// minBytes within each stall period, not any byte: a server that trickles
// one byte a second would otherwise hold a remote worker, and the user's
// turn, for the whole budget (issue 24).
type watchdog struct {
	ctx      context.Context
	cancel   context.CancelCauseFunc
	stall    time.Duration
	minBytes int64

	mu    sync.Mutex
	timer *time.Timer
	got   int64 // bytes since the timer last restarted
}

func newWatchdog(parent context.Context, stall time.Duration, minBytes int64) *watchdog {
	ctx, cancel := context.WithCancelCause(parent)
	w := &watchdog{ctx: ctx, cancel: cancel, stall: stall, minBytes: minBytes}
	w.timer = time.AfterFunc(stall, func() {
		cancel(fmt.Errorf("%w (less than %d bytes received in %s)", ErrStalled, minBytes, stall))
	})
	return w
}

// progress counts n bytes received and restarts the stall timer once
// minBytes have arrived since it last did; an answer's headers are
// progress in full (n < 0).
func (w *watchdog) progress(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got += int64(n)
	if n < 0 || w.got >= w.minBytes {
		w.got = 0
		w.timer.Reset(w.stall)
	}
}

// stop ends the watch and releases the context.
func (w *watchdog) stop() {
	w.mu.Lock()
	w.timer.Stop()
	w.mu.Unlock()
	w.cancel(nil)
}

// progressReader reports progress to its watchdog whenever a read
// returns bytes.
type progressReader struct {
	r io.Reader
	w *watchdog
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.w.progress(n)
	}
	return n, err
}
