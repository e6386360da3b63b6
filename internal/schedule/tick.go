package schedule

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/store"
)

// DefaultTick is how often the scheduler looks for due work unless
// configured otherwise: schedules are to the minute.
const DefaultTick = 30 * time.Second

// Args is one tick of the scheduler.
type Args struct{}

// Kind names the job.
func (Args) Kind() string { return "schedule" }

// InsertOpts: a tick that fails is not retried (the next one does its
// work), and it runs in the local queue.
func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, Queue: jobs.QueueLocal}
}

// Periodic is the River periodic job that ticks every tick (DefaultTick
// when zero), starting with the client.
func Periodic(tick time.Duration) *river.PeriodicJob {
	if tick <= 0 {
		tick = DefaultTick
	}
	return river.NewPeriodicJob(river.PeriodicInterval(tick),
		func() (river.JobArgs, *river.InsertOpts) { return Args{}, nil },
		// Not on start: a due run waits at most one tick after a restart,
		// and a process's first moments stay free of the scheduler's
		// statements (the statement-count tests measured them).
		&river.PeriodicJobOpts{ID: "schedule"})
}

// Scheduler starts the scans and auto-updates that are due.
type Scheduler struct {
	Store  *store.Store
	Jobs   *jobs.Jobs
	Notify *notify.Hub
	Logger *slog.Logger
}

// Worker works the ticks.
type Worker struct {
	river.WorkerDefaults[Args]
	S *Scheduler
}

// Timeout bounds one tick.
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return 5 * time.Minute }

// Work runs one tick.
func (w *Worker) Work(ctx context.Context, _ *river.Job[Args]) error {
	return w.S.Tick(ctx, time.Now().UTC())
}

// Tick starts the scans of sources due at now, then the auto-updates.
func (s *Scheduler) Tick(ctx context.Context, now time.Time) error {
	if err := s.dueScans(ctx, now); err != nil {
		return err
	}
	return s.autoUpdates(ctx, now)
}

// dueScans starts a scan of every source whose scan_schedule is due. A
// source with a schedule but no next run yet is armed: its first run is
// the schedule's next one.
func (s *Scheduler) dueScans(ctx context.Context, now time.Time) error {
	srcs, err := s.Store.Client.Source.Query().
		Where(source.ScanScheduleNEQ(""), source.Or(source.NextScanAtIsNil(), source.NextScanAtLTE(now))).
		All(ctx)
	if err != nil {
		return err
	}
	for _, src := range srcs {
		err := s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			upd := c.Source.Update().Where(source.ID(src.ID))
			if src.NextScanAt == nil {
				upd.Where(source.NextScanAtIsNil())
			} else {
				upd.Where(source.NextScanAtLTE(now)) // still due: no other tick moved it
			}
			if next := NextAfter(src.ScanSchedule, now); next != nil {
				upd.SetNextScanAt(*next)
			} else {
				upd.ClearNextScanAt()
			}
			if n, err := upd.Save(ctx); err != nil || n == 0 || src.NextScanAt == nil {
				return err // moved by another tick, or only armed
			}
			return startScan(ctx, c, tx, s.Jobs, src.ID, src.UserID)
		})
		if err != nil {
			s.Logger.WarnContext(ctx, "scheduled scan", "source", src.ID, "err", err)
		}
	}
	return nil
}

// startScan enqueues a scan of a source by userID on tx unless one is
// queued or running.
func startScan(ctx context.Context, c *ent.Client, tx *sql.Tx, j *jobs.Jobs, sourceID, userID int) error {
	busy, err := c.Scan.Query().
		Where(scan.SourceID(sourceID), scan.StatusIn(scan.StatusQueued, scan.StatusScanning)).Exist(ctx)
	if err != nil || busy {
		return err
	}
	_, err = scanning.Start(ctx, c, tx, j, sourceID, userID)
	return err
}
