package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// ErrNotFound is returned for a job id that does not exist (never
// committed, or removed after its retention period).
var ErrNotFound = errors.New("jobs: job not found")

// Info is what status endpoints show of a job.
type Info struct {
	ID          int64
	Kind        string
	State       State
	Attempt     int
	MaxAttempts int
	// Errors are the errors of failed attempts, oldest first.
	Errors []string
}

// State reads a job's current state from the database.
func (j *Jobs) State(ctx context.Context, jobID int64) (Info, error) {
	row, err := j.client.JobGet(ctx, jobID)
	if err != nil {
		if errors.Is(err, river.ErrNotFound) {
			return Info{}, ErrNotFound
		}
		return Info{}, fmt.Errorf("jobs: reading job %d: %w", jobID, err)
	}
	info := Info{ID: row.ID, Kind: row.Kind, State: row.State, Attempt: row.Attempt, MaxAttempts: row.MaxAttempts}
	for _, e := range row.Errors {
		info.Errors = append(info.Errors, e.Error)
	}
	return info, nil
}

// Cancel cancels a job. A job that has not started (available, scheduled,
// retryable) is cancelled at once and never runs. A running job is marked
// for cancellation and its context is cancelled: at once on PostgreSQL
// (LISTEN/NOTIFY reaches the working process), within about 50 ms on
// SQLite; the worker must return on ctx.Done(). A finished job is left as
// it is. It returns the state the job is in after the request.
//
// Cancel writes through the job system's own connection: never call it
// while a store transaction is open (use CancelTx), or it waits for the
// locks that transaction holds until it ends, which it never does.
func (j *Jobs) Cancel(ctx context.Context, jobID int64) (State, error) {
	row, err := j.client.JobCancel(ctx, jobID)
	return j.cancelled(ctx, jobID, row, err, j.notifyControl)
}

// CancelTx is Cancel on tx, a transaction of store.InTx: the cancellation
// commits or rolls back with tx. The event of a job cancelled before it
// ran is reported at once, before tx commits.
func (j *Jobs) CancelTx(ctx context.Context, tx *sql.Tx, jobID int64) (State, error) {
	row, err := j.cancelTx(ctx, tx, jobID)
	var notify func(context.Context, string) error
	if j.notifyControlTx != nil {
		notify = func(ctx context.Context, payload string) error { return j.notifyControlTx(ctx, tx, payload) }
	}
	return j.cancelled(ctx, jobID, row, err, notify)
}

// cancelled finishes a cancellation request that returned row and err:
// it signals a running job's worker through notify (SQLite; nil elsewhere)
// and reports a job cancelled before it ran.
func (j *Jobs) cancelled(ctx context.Context, jobID int64, row *rivertype.JobRow, err error, notify func(context.Context, string) error) (State, error) {
	if err != nil {
		if errors.Is(err, river.ErrNotFound) {
			return "", ErrNotFound
		}
		return "", fmt.Errorf("jobs: cancelling job %d: %w", jobID, err)
	}
	if row.State == StateRunning && notify != nil {
		// riversqlite v0.47.0 records the cancellation but sends no control
		// notification, so the working client would not interrupt the
		// attempt; send the one River's PostgreSQL driver sends. Its
		// listener polls the notification table, so this reaches any
		// process on the same file. Revisit when upgrading River.
		payload, err := json.Marshal(map[string]any{"action": "cancel", "job_id": row.ID, "queue": row.Queue})
		if err != nil {
			return "", err
		}
		if err := notify(ctx, string(payload)); err != nil {
			return "", fmt.Errorf("jobs: signalling the cancellation of job %d: %w", jobID, err)
		}
	}
	if row.State == StateCancelled {
		// Cancelled before it ran: River reports no event for this, so
		// report it here.
		e := eventOf(row)
		j.emit(e)
	}
	return row.State, nil
}
