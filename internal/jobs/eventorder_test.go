package jobs

import (
	"fmt"
	"testing"
	"time"
)

func states(es []JobEvent) string {
	s := ""
	for _, e := range es {
		s += fmt.Sprintf("%s/%d ", e.State, e.Attempt)
	}
	return s
}

// The next attempt's running waits for the last attempt's outcome; it goes
// out with it, or after holdFor when the outcome never comes.
func TestAttemptOrder(t *testing.T) {
	o := newAttemptOrder()
	now := time.Now()
	ev := func(state State, attempt int) JobEvent { return JobEvent{JobID: 7, State: state, Attempt: attempt} }
	steps := []struct {
		e    JobEvent
		want string
	}{
		{ev(StateRunning, 1), "running/1 "},
		{ev(StateRunning, 2), ""}, // attempt 1's outcome not yet delivered
		{ev(StateRetryable, 1), "retryable/1 running/2 "},
		{ev(StateRetryable, 2), "retryable/2 "},
		{ev(StateRunning, 3), "running/3 "},
		{ev(StateDiscarded, 3), "discarded/3 "},
	}
	for i, s := range steps {
		if got := states(o.admit(s.e, now)); got != s.want {
			t.Fatalf("step %d (%s/%d): delivered %q, want %q", i, s.e.State, s.e.Attempt, got, s.want)
		}
	}
	if len(o.ended) != 0 {
		t.Fatalf("a finished job is still tracked: %v", o.ended)
	}
	// An outcome that never arrives holds the next running for holdFor
	// only; other jobs pass meanwhile.
	if got := o.admit(JobEvent{JobID: 8, State: StateRunning, Attempt: 4}, now); got != nil {
		t.Fatalf("delivered %v", got)
	}
	if got := states(o.admit(JobEvent{JobID: 9, State: StateRunning, Attempt: 1}, now)); got != "running/1 " {
		t.Fatalf("another job: %q", got)
	}
	if got := o.expired(now.Add(holdFor/2), false); got != nil {
		t.Fatalf("released early: %v", got)
	}
	if got := states(o.expired(now.Add(holdFor), false)); got != "running/4 " {
		t.Fatalf("after holdFor: %q", got)
	}
	o.admit(JobEvent{JobID: 10, State: StateRunning, Attempt: 2}, now)
	if got := states(o.expired(now, true)); got != "running/2 " {
		t.Fatalf("at the end: %q", got)
	}
}
