package fetch

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// watchdog cancels its context with ErrStalled when progress is not
// reported for stall: the progress timeout of a download, which the
// total budget (a context deadline) cannot replace, since a server that
// trickles one byte a second would hold a worker for the whole budget.
type watchdog struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	stall  time.Duration

	mu    sync.Mutex
	timer *time.Timer
}

func newWatchdog(parent context.Context, stall time.Duration) *watchdog {
	ctx, cancel := context.WithCancelCause(parent)
	w := &watchdog{ctx: ctx, cancel: cancel, stall: stall}
	w.timer = time.AfterFunc(stall, func() {
		cancel(fmt.Errorf("%w (nothing received for %s)", ErrStalled, stall))
	})
	return w
}

// progress restarts the stall timer.
func (w *watchdog) progress() {
	w.mu.Lock()
	w.timer.Reset(w.stall)
	w.mu.Unlock()
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
		p.w.progress()
	}
	return n, err
}
