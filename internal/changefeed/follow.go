package changefeed

import (
	"context"
	"time"

	"github.com/geopub/geopub/internal/access"
)

// pollEvery is how often a follower reads the feed when nothing in this
// process signalled a new event: the most another process's events wait.
const pollEvery = time.Second

// wakeup returns a channel closed at the next append this process
// commits.
func (f *Feed) wakeup() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.woken
}

// wake tells the followers in this process that events were committed.
func (f *Feed) wake() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.woken)
	f.woken = make(chan struct{})
}

// Newest is the cursor of the newest event (0 when the feed is empty):
// following from it gives only events to come.
func (f *Feed) Newest(ctx context.Context) (int64, error) { return newestID(ctx, f.store.Client) }

// Follow sends the events q selects after q.After, then each new one as
// it commits, until ctx ends; the channel is closed then. viewer is
// resolved again before each read, so a revoked grant or membership
// hides what it no longer shows at once. Events committed by this
// process arrive at once; another process's within pollEvery.
func (f *Feed) Follow(ctx context.Context, viewer func(context.Context) (*access.Viewer, error), q Query) <-chan Event {
	if q.Limit <= 0 {
		q.Limit = 100
	}
	out := make(chan Event)
	go func() {
		defer close(out)
		for {
			woken := f.wakeup()
			v, err := viewer(ctx)
			var p Page
			if err == nil {
				p, err = List(ctx, f.store.Client, v, q)
			}
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				f.logger.Warn("changefeed: following the feed", "error", err)
			}
			for _, e := range p.Events {
				select {
				case out <- e:
				case <-ctx.Done():
					return
				}
			}
			if err == nil {
				q.After = p.Next
				if len(p.Events) == q.Limit {
					continue // a full page: read on at once
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-woken:
			case <-time.After(pollEvery):
			}
		}
	}()
	return out
}
