package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
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
// limit jobs of its kind is snoozed (which uses up no attempt), leaving
// the worker to other users' jobs. Older jobs win: a job gives way to the
// user's older jobs that run or are due, and to younger ones this process
// has already let run, so two jobs taken at once never snooze each other
// and a job woken for a free slot (wake) is never overtaken by a younger
// one fetched meanwhile. The check and the wake of one user run one at a
// time in this process (gate).
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
	// remoteLimit is limit in QueueRemote, fewer when the remote workers
	// are few: one user's slow downloads may never hold every remote
	// worker while others' wait (issue 24).
	remoteLimit int

	// ended holds the jobs this process finished lately: River records a
	// job's end a moment after its worker returns, and until then it still
	// reads as running.
	mu    sync.Mutex
	ended map[int64]time.Time
	// admitted holds the jobs this process let run and that have not
	// returned yet.
	admitted map[int64]struct{}

	gates [64]sync.Mutex
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
	admit, err := m.admit(ctx, job.Kind, job.Queue, user, job.ID)
	if err != nil {
		return fmt.Errorf("jobs: counting the running jobs of %s: %w", user, err)
	}
	if !admit {
		// A job cancelled while River held it (fetched, about to wait)
		// keeps only the attempt: end it rather than have it wait, and
		// later be woken, as if it had not been cancelled.
		if ctx.Err() != nil || cancelAttempted(job) {
			return river.JobCancel(errors.New("jobs: cancelled while waiting for a slot"))
		}
		return river.JobSnooze(m.snooze/2 + rand.N(m.snooze))
	}
	defer m.end(job.ID)
	return doInner(ctx)
}

// limitOf is how many of one user's jobs of a kind may run in queue.
// Jobs are counted per queue, so a user's downloads never hold the slots
// of their local work (an upload's scan waited behind their slow URL
// scans, issue 24).
func (m *perUser) limitOf(queue string) int {
	if queue == QueueRemote {
		return m.remoteLimit
	}
	return m.limit
}

// gate is the lock that makes the checks and wakes of one kind, queue and
// user take turns in this process.
func (m *perUser) gate(kind, queue, user string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(queue))
	h.Write([]byte{0})
	h.Write([]byte(user))
	return &m.gates[h.Sum32()%uint32(len(m.gates))]
}

// admit reports whether job id of kind, queue and user may run now, and
// if so records it as admitted: it may when fewer than the queue's limit
// of the user's jobs it gives way to run or are due.
func (m *perUser) admit(ctx context.Context, kind, queue, user string, id int64) (bool, error) {
	g := m.gate(kind, queue, user)
	g.Lock()
	defer g.Unlock()
	limit := m.limitOf(queue)
	busy, err := m.running(ctx, kind, queue, user, id)
	if err != nil || busy >= limit {
		return false, err
	}
	due, err := m.dueBefore(ctx, kind, queue, user, id)
	if err != nil || busy+due >= limit {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.admitted == nil {
		m.admitted = map[int64]struct{}{}
	}
	m.admitted[id] = struct{}{}
	return true, nil
}

// running counts the running jobs of kind and user other than the job
// before that are older than it or that this process let run, leaving
// out those this process has finished.
func (m *perUser) running(ctx context.Context, kind, queue, user string, before int64) (int, error) {
	m.mu.Lock()
	skip := len(m.ended) + len(m.admitted)
	m.mu.Unlock()
	params := river.NewJobListParams().Kinds(kind).Queues(queue).States(rivertype.JobStateRunning).
		TagsAny(user).OrderBy(river.JobListOrderByID, river.SortOrderAsc).First(m.limitOf(queue) + 1 + skip)
	res, err := m.j.client.JobList(ctx, params)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range res.Jobs {
		_, done := m.ended[r.ID]
		_, let := m.admitted[r.ID]
		if r.ID != before && (r.ID < before || let) && !done {
			n++
		}
	}
	return n, nil
}

// dueBefore counts, up to limit, the waiting jobs of kind and user older
// than the job before that are due now: jobs made due for a free slot,
// which a younger job must not overtake.
func (m *perUser) dueBefore(ctx context.Context, kind, queue, user string, before int64) (int, error) {
	params := river.NewJobListParams().Kinds(kind).Queues(queue).States(rivertype.JobStateAvailable, rivertype.JobStateScheduled).
		TagsAny(user).Where("id < @before", river.NamedArgs{"before": before}).
		OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).First(m.limitOf(queue))
	res, err := m.j.client.JobList(ctx, params)
	if err != nil {
		return 0, err
	}
	now := time.Now()
	n := 0
	for _, r := range res.Jobs {
		if !r.ScheduledAt.After(now) {
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
	delete(m.admitted, id)
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
		if err := m.wake(ctx, ev.Job.Kind, ev.Job.Queue, user); err != nil {
			m.j.logger.WarnContext(ctx, "jobs: handing a user's free slot on", "user", user, "kind", ev.Job.Kind, "error", err)
		}
		cancel()
	}
}

// wake makes the oldest waiting jobs of kind, queue and user due now, as many as
// the user has free slots. A waiting job already due counts as taking a
// slot; a job cancelled meanwhile is left cancelled.
func (m *perUser) wake(ctx context.Context, kind, queue, user string) error {
	g := m.gate(kind, queue, user)
	g.Lock()
	defer g.Unlock()
	limit := m.limitOf(queue)
	busy, err := m.running(ctx, kind, queue, user, 1<<62)
	if err != nil || busy >= limit {
		return err
	}
	params := river.NewJobListParams().Kinds(kind).Queues(queue).States(rivertype.JobStateAvailable, rivertype.JobStateScheduled).
		TagsAny(user).OrderBy(river.JobListOrderByID, river.SortOrderAsc).First(limit - busy)
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
		if cancelAttempted(next) {
			// Cancelled while it was being snoozed: it stays cancelled.
			if _, err := m.j.client.JobCancel(ctx, next.ID); err != nil && !errors.Is(err, river.ErrNotFound) {
				return err
			}
			continue
		}
		if !next.ScheduledAt.After(now) {
			continue
		}
		if _, err := m.j.st.DB.ExecContext(ctx, q, next.ID); err != nil {
			return err
		}
	}
	return nil
}

// cancelAttempted reports whether River recorded a cancellation of job
// while it ran (its metadata's cancel_attempted_at).
func cancelAttempted(job *rivertype.JobRow) bool {
	var md map[string]json.RawMessage
	if len(job.Metadata) == 0 || json.Unmarshal(job.Metadata, &md) != nil {
		return false
	}
	_, ok := md["cancel_attempted_at"]
	return ok
}
