package jobs

import "time"

// holdFor bounds how long attemptOrder holds a running event back.
const holdFor = 2 * time.Second

// attemptOrder keeps a job's events in attempt order: the running event of
// attempt n > 1 is held back until the outcome of attempt n-1 has been
// delivered. The two come from different sources: the work-begin hook
// reports running at once, while River's subscription reports an outcome
// after its completer has committed it, in batches. With a short retry
// backoff the next attempt can begin first, and a client following the job
// would read "running" twice, then "retryable". A held event goes out when
// that outcome arrives, or after holdFor: River drops events when its
// buffer overflows, and a process that restarted never saw the outcome.
// Only the event loop's goroutine uses it.
type attemptOrder struct {
	// ended is the last attempt whose outcome was delivered, per job that
	// may still run again.
	ended map[int64]int
	held  map[int64]heldEvent
}

type heldEvent struct {
	e     JobEvent
	until time.Time
}

func newAttemptOrder() *attemptOrder {
	return &attemptOrder{ended: map[int64]int{}, held: map[int64]heldEvent{}}
}

// admit takes e and returns the events to deliver now, in order: none
// when e is held, else e followed by the running event it releases.
func (o *attemptOrder) admit(e JobEvent, now time.Time) []JobEvent {
	id := e.JobID
	finished := false
	switch e.State {
	case StateRunning:
		if e.Attempt > 1 && o.ended[id] < e.Attempt-1 {
			o.held[id] = heldEvent{e: e, until: now.Add(holdFor)}
			return nil
		}
		return []JobEvent{e}
	case StateRetryable, StateScheduled:
		o.ended[id] = max(o.ended[id], e.Attempt)
	case StateCompleted, StateCancelled, StateDiscarded:
		delete(o.ended, id)
		finished = true
	}
	out := []JobEvent{e}
	if h, ok := o.held[id]; ok && (finished || h.e.Attempt-1 <= o.ended[id]) {
		delete(o.held, id)
		out = append(out, h.e)
	}
	return out
}

// expired returns the held events whose time is up at now, and forgets
// them; all held events when all is set (the loop is ending).
func (o *attemptOrder) expired(now time.Time, all bool) []JobEvent {
	var out []JobEvent
	for id, h := range o.held {
		if all || !now.Before(h.until) {
			out = append(out, h.e)
			delete(o.held, id)
		}
	}
	return out
}
