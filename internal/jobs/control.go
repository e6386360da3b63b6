package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
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
func (j *Jobs) Cancel(ctx context.Context, jobID int64) (State, error) {
	row, err := j.client.JobCancel(ctx, jobID)
	if err != nil {
		if errors.Is(err, river.ErrNotFound) {
			return "", ErrNotFound
		}
		return "", fmt.Errorf("jobs: cancelling job %d: %w", jobID, err)
	}
	if row.State == StateRunning && j.notifyControl != nil {
		// riversqlite v0.47.0 records the cancellation but sends no control
		// notification, so the working client would not interrupt the
		// attempt; send the one River's PostgreSQL driver sends. Its
		// listener polls the notification table, so this reaches any
		// process on the same file. Revisit when upgrading River.
		payload, err := json.Marshal(map[string]any{"action": "cancel", "job_id": row.ID, "queue": row.Queue})
		if err != nil {
			return "", err
		}
		if err := j.notifyControl(ctx, string(payload)); err != nil {
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
