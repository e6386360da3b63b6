package jobs

import (
	"context"

	"github.com/riverqueue/river"
)

// PingArgs is a built-in job that does nothing but complete: every working
// client handles it, so inserting one checks that workers are up (and
// `geopub worker` has a worker to run before any capability registers
// its own).
type PingArgs struct {
	Note string `json:"note,omitempty"`
}

// Kind implements river.JobArgs.
func (PingArgs) Kind() string { return "geopub_ping" }

type pingWorker struct {
	river.WorkerDefaults[PingArgs]
}

func (pingWorker) Work(context.Context, *river.Job[PingArgs]) error { return nil }
