package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// State is a job's state, as River stores it.
type State = rivertype.JobState

// The states events report. River's other states (available, pending,
// scheduled) are states a job waits in, not changes this package reports.
const (
	StateRunning   = rivertype.JobStateRunning
	StateCompleted = rivertype.JobStateCompleted
	// StateRetryable: the attempt failed and the job will run again.
	StateRetryable = rivertype.JobStateRetryable
	StateCancelled = rivertype.JobStateCancelled
	// StateDiscarded: the last attempt failed; the job will not run again.
	StateDiscarded = rivertype.JobStateDiscarded
	// StateAvailable: the job waits for a worker.
	StateAvailable = rivertype.JobStateAvailable
	// StateScheduled: the job was snoozed or interrupted by a stopping
	// worker and will run again later without using up an attempt.
	StateScheduled = rivertype.JobStateScheduled
)

// JobEvent is one state change of a job.
//
// Where events are delivered: River reports job state changes only inside
// the process whose client worked the job, so handlers registered with
// OnEvent see the jobs this process runs (running, completed, retryable,
// discarded, cancelled while running, scheduled after a snooze or an
// interruption) plus the cancellations this process makes through Cancel.
// A job inserted here and worked by another process (`geopub worker`)
// produces its events there, not here: code that must see every job across
// replicas (the notification stream) has to record events in the database
// from the handler in the working process and fan them out from there.
//
// Delivery is in order per job (running before its outcome, an attempt's
// outcome before the next attempt's running) from a single goroutine; handlers must be quick (River drops events when its buffer of
// 1000 overflows). Events are best-effort observation, not a durable log:
// a crash between a state change and its handler loses the event.
type JobEvent struct {
	JobID   int64
	Kind    string
	Queue   string
	State   State
	Attempt int
	// Error is the error of the failed attempt (retryable, discarded), or
	// empty.
	Error string
	// RunDuration is how long the attempt that just ended ran, as River
	// measured it around the worker; zero for running and for
	// cancellations of jobs that were not running here.
	RunDuration time.Duration
}

// OnEvent adds a handler for job state changes. Add handlers before Start.
func (j *Jobs) OnEvent(fn func(ctx context.Context, e JobEvent)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.handlers = append(j.handlers, fn)
}

// emit queues e for the handlers; it blocks while the queue is full, which
// only the handlers' own slowness causes.
func (j *Jobs) emit(e JobEvent) {
	j.mu.Lock()
	started := j.started
	j.mu.Unlock()
	if !started {
		return // no loop to deliver it
	}
	j.emitMu.RLock()
	defer j.emitMu.RUnlock()
	if j.emitClosed {
		return
	}
	j.events <- e
}

// closeEvents ends event delivery once River's subscription is drained.
func (j *Jobs) closeEvents() {
	j.emitMu.Lock()
	if !j.emitClosed {
		j.emitClosed = true
		close(j.events)
	}
	j.emitMu.Unlock()
	<-j.done
}

// eventLoop delivers events, from River's subscription and from emit, to
// the handlers, until both sources are closed; attemptOrder keeps each
// job's attempts in order across the two.
func (j *Jobs) eventLoop(riverEvents <-chan *river.Event) {
	defer close(j.done)
	ctx := context.Background()
	own := j.events
	order := newAttemptOrder()
	tick := time.NewTicker(holdFor / 4)
	defer tick.Stop()
	admit := func(e JobEvent) {
		for _, e := range order.admit(e, time.Now()) {
			j.deliver(ctx, e)
		}
	}
	for riverEvents != nil || own != nil {
		select {
		case ev, ok := <-riverEvents:
			if !ok {
				riverEvents = nil
				continue
			}
			if e, ok := fromRiver(ev); ok {
				admit(e)
			}
		case e, ok := <-own:
			if !ok {
				own = nil
				continue
			}
			admit(e)
		case now := <-tick.C:
			for _, e := range order.expired(now, false) {
				j.deliver(ctx, e)
			}
		}
	}
	for _, e := range order.expired(time.Now(), true) {
		j.deliver(ctx, e)
	}
}

func (j *Jobs) deliver(ctx context.Context, e JobEvent) {
	j.mu.Lock()
	hs := j.handlers
	j.mu.Unlock()
	for _, h := range hs {
		h(ctx, e)
	}
}

// fromRiver turns a River job event into a JobEvent.
func fromRiver(ev *river.Event) (JobEvent, bool) {
	if ev.Job == nil {
		return JobEvent{}, false
	}
	e := eventOf(ev.Job)
	if ev.JobStats != nil {
		e.RunDuration = ev.JobStats.RunDuration
	}
	switch ev.Kind {
	case river.EventKindJobCompleted:
		e.State = StateCompleted
	case river.EventKindJobCancelled:
		e.State = StateCancelled
	case river.EventKindJobFailed:
		// River makes a job that will be retried soon available at once
		// instead of retryable; both mean "failed, will run again".
		if ev.Job.State != StateDiscarded {
			e.State = StateRetryable
		}
		if n := len(ev.Job.Errors); n > 0 {
			e.Error = ev.Job.Errors[n-1].Error
		}
	case river.EventKindJobSnoozed, river.EventKindJobInterrupted:
		e.State = StateScheduled
	default:
		return JobEvent{}, false
	}
	return e, true
}

func eventOf(row *rivertype.JobRow) JobEvent {
	return JobEvent{JobID: row.ID, Kind: row.Kind, Queue: row.Queue, State: row.State, Attempt: row.Attempt}
}

// runningHook reports a job as running when a worker takes it: River has
// no subscription event for that, so a work-begin hook supplies it.
type runningHook struct {
	river.HookDefaults
	j *Jobs
}

func (h *runningHook) WorkBegin(ctx context.Context, job *rivertype.JobRow) error {
	e := eventOf(job)
	e.State = StateRunning
	h.j.emit(e)
	return nil
}
