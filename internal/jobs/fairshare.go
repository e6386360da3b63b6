package jobs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// perUser is the worker middleware that keeps one user from holding more
// than limit workers with jobs of one kind: a job whose user already runs
// limit older jobs of its kind is snoozed (which uses up no attempt),
// leaving the worker to other users' jobs. Older jobs win, so two jobs
// taken at once never snooze each other.
//
// A snoozed job does not wait out its snooze when a slot frees: each time
// River records that one of a user's jobs ended or was snoozed (its
// subscription reports only what is stored), the user's free slots go to
// their oldest waiting jobs, which are made due at once (wakeLoop). Either
// the end or the snooze is recorded last, and that event finds the other,
// so a burst of one user's jobs runs back to back. The snooze, jittered so
// waiting jobs do not wake together, is only the fallback for an event
// River dropped.
type perUser struct {
	river.MiddlewareDefaults
	j      *Jobs
	limit  int
	snooze time.Duration

	// ended holds the jobs this process finished lately: River records a
	// job's end a moment after its worker returns, and until then it still
	// reads as running.
	mu    sync.Mutex
	ended map[int64]time.Time
}

const (
	// endedGrace is how long a finished job is remembered in
	// perUser.ended, well above River's completion batching.
	endedGrace = 10 * time.Second
	// maxRemembered bounds perUser.ended.
	maxRemembered = 256
)

func (m *perUser) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	user := userOf(job)
	if user == "" {
		return doInner(ctx)
	}
	older, err := m.running(ctx, job.Kind, user, job.ID)
	if err != nil {
		return fmt.Errorf("jobs: counting the running jobs of %s: %w", user, err)
	}
	if older >= m.limit {
		return river.JobSnooze(m.snooze/2 + rand.N(m.snooze))
	}
	defer m.end(job.ID)
	return doInner(ctx)
}

// running counts the running jobs of kind and user with ids below
// before, leaving out those this process has finished.
func (m *perUser) running(ctx context.Context, kind, user string, before int64) (int, error) {
	m.mu.Lock()
	skip := len(m.ended)
	m.mu.Unlock()
	params := river.NewJobListParams().Kinds(kind).States(rivertype.JobStateRunning).
		TagsAny(user).OrderBy(river.JobListOrderByID, river.SortOrderAsc).First(m.limit + 1 + skip)
	res, err := m.j.client.JobList(ctx, params)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range res.Jobs {
		if _, done := m.ended[r.ID]; r.ID < before && !done {
			n++
		}
	}
	return n, nil
}

// end remembers that the job id's work has returned.
func (m *perUser) end(id int64) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended == nil {
		m.ended = map[int64]time.Time{}
	}
	for old, at := range m.ended {
		if now.Sub(at) > endedGrace || len(m.ended) >= maxRemembered {
			delete(m.ended, old)
		}
	}
	m.ended[id] = now
}

// wakeLoop gives free slots to waiting jobs as River reports jobs ended
// or snoozed, until events is closed.
func (m *perUser) wakeLoop(events <-chan *river.Event, done chan<- struct{}) {
	defer close(done)
	for ev := range events {
		if ev.Job == nil {
			continue
		}
		user := userOf(ev.Job)
		if user == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := m.wake(ctx, ev.Job.Kind, user); err != nil {
			m.j.logger.WarnContext(ctx, "jobs: handing a user's free slot on", "user", user, "kind", ev.Job.Kind, "error", err)
		}
		cancel()
	}
}

// wake makes the oldest waiting jobs of kind and user due now, as many as
// the user has free slots. A waiting job already due counts as taking a
// slot; a job cancelled meanwhile is left cancelled.
func (m *perUser) wake(ctx context.Context, kind, user string) error {
	busy, err := m.running(ctx, kind, user, 1<<62)
	if err != nil || busy >= m.limit {
		return err
	}
	params := river.NewJobListParams().Kinds(kind).States(rivertype.JobStateAvailable, rivertype.JobStateScheduled).
		TagsAny(user).OrderBy(river.JobListOrderByID, river.SortOrderAsc).First(m.limit - busy)
	res, err := m.j.client.JobList(ctx, params)
	if err != nil {
		return err
	}
	// A job's creation time is a due time in the past, in the driver's
	// own format.
	q := `UPDATE river_job SET state = 'available', scheduled_at = created_at WHERE id = $1 AND state IN ('available', 'scheduled')`
	if m.j.st.Dialect == dialect.SQLite {
		q = strings.Replace(q, "$1", "?", 1)
	}
	now := time.Now()
	for _, next := range res.Jobs {
		if !next.ScheduledAt.After(now) {
			continue
		}
		if _, err := m.j.st.DB.ExecContext(ctx, q, next.ID); err != nil {
			return err
		}
	}
	return nil
}
