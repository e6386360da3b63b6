package jobs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Queues. Work that only touches this host's files and the database
// (upload scans, imports of uploaded files, publishes) runs in QueueLocal;
// work that downloads from remote servers (URL scans, imports of URL
// sources) runs in QueueRemote, whose workers are counted apart, so slow
// remote servers can hold at most Config.RemoteWorkers workers and never
// keep local work waiting.
const (
	QueueLocal  = river.QueueDefault
	QueueRemote = "remote"
)

const (
	defaultRemoteWorkers = 2
	defaultPerUser       = 2
	defaultFairSnooze    = 5 * time.Second
)

// userTagPrefix marks the tag that names the user a job works for.
const userTagPrefix = "user-"

// For is the insert options of a job done for userID: its queue (remote
// when it downloads from remote servers) and the tag the per-user limit
// counts by. Pass it to Insert or InsertTx; the job kind's own
// InsertOpts (attempts, ...) still apply.
func For(userID int, remote bool) *river.InsertOpts {
	q := QueueLocal
	if remote {
		q = QueueRemote
	}
	return &river.InsertOpts{Queue: q, Tags: []string{userTagPrefix + strconv.Itoa(userID)}}
}

// userOf is the user tag of a job, "" when it has none.
func userOf(job *rivertype.JobRow) string {
	for _, t := range job.Tags {
		if strings.HasPrefix(t, userTagPrefix) {
			return t
		}
	}
	return ""
}

// perUser is the worker middleware that keeps one user from holding more
// than limit workers with jobs of one kind: a job whose user already runs
// limit older jobs of its kind is snoozed (which uses up no attempt) and
// tried again later, leaving the worker to other users' jobs. Older jobs
// win, so two jobs taken at once never snooze each other.
type perUser struct {
	river.MiddlewareDefaults
	j      *Jobs
	limit  int
	snooze time.Duration
}

func (m *perUser) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	user := userOf(job)
	if user == "" {
		return doInner(ctx)
	}
	older, err := m.olderRunning(ctx, job, user)
	if err != nil {
		return fmt.Errorf("jobs: counting the running jobs of %s: %w", user, err)
	}
	if older >= m.limit {
		return river.JobSnooze(m.snooze)
	}
	return doInner(ctx)
}

// olderRunning counts the running jobs of job's kind and user that were
// inserted before it.
func (m *perUser) olderRunning(ctx context.Context, job *rivertype.JobRow, user string) (int, error) {
	params := river.NewJobListParams().Kinds(job.Kind).States(rivertype.JobStateRunning).
		TagsAny(user).OrderBy(river.JobListOrderByID, river.SortOrderAsc).First(m.limit + 1)
	res, err := m.j.client.JobList(ctx, params)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range res.Jobs {
		if r.ID < job.ID {
			n++
		}
	}
	return n, nil
}
