// Package jobstest runs the job system in tests: on a test's store, River's
// tables migrated, polling often so that jobs run within milliseconds, and
// stopped when the test ends.
package jobstest

import (
	"context"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/store"
)

// New returns a job system on st, not yet started: register the workers,
// then Start it.
func New(t testing.TB, st *store.Store) *jobs.Jobs {
	t.Helper()
	if _, err := jobs.MigrateRiver(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	j, err := jobs.New(st, jobs.Config{FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// Start starts j's workers; they stop when the test ends.
func Start(t testing.TB, j *jobs.Jobs) {
	t.Helper()
	if err := j.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Stop(context.Background()) })
}
