// Package flushloop runs a flush on a ticker until it is stopped: the
// shape of the counters that gather in memory and now and then add what
// they hold to the database (popularity, usage figures).
package flushloop

import (
	"context"
	"log/slog"
	"time"
)

// Loop is a ticker calling a flush; its zero value is stopped.
type Loop struct {
	stop chan struct{}
	done chan struct{}
}

// Start calls flush every interval until Stop is called or ctx ends,
// logging a failed flush with what (a flush failing because ctx ended is
// not logged). Starting a started loop does nothing.
func (l *Loop) Start(ctx context.Context, interval time.Duration, flush func(context.Context) error, logger *slog.Logger, what string) {
	if l.stop != nil {
		return
	}
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if err := flush(ctx); err != nil && ctx.Err() == nil {
					logger.WarnContext(ctx, what, "err", err)
				}
			}
		}
	}(l.stop, l.done)
}

// Stop ends the loop and waits for a flush under way; a stopped loop
// stays as it is.
func (l *Loop) Stop() {
	if l.stop == nil {
		return
	}
	close(l.stop)
	<-l.done
	l.stop, l.done = nil, nil
}
