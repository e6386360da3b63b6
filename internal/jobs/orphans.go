package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// defaultOrphanCheck is how often a working process looks for jobs left
// running by dead processes (it also looks once as it starts).
const defaultOrphanCheck = 10 * time.Second

// Abandoner is implemented by workers whose jobs must record their end
// when the process working their last attempt died: no attempt is left to
// do it, so the orphan rescuer calls Abandon before it discards the job,
// and discards it only once Abandon succeeds. Abandon may therefore run
// more than once for one job and must be idempotent.
type Abandoner[T river.JobArgs] interface {
	Abandon(ctx context.Context, job *river.Job[T], reason string) error
}

// abandonFunc is an Abandoner bound to its job kind's arguments.
type abandonFunc func(ctx context.Context, row *rivertype.JobRow, reason string) error

func abandonerOf[T river.JobArgs](w river.Worker[T]) abandonFunc {
	a, ok := w.(Abandoner[T])
	if !ok {
		return nil
	}
	return func(ctx context.Context, row *rivertype.JobRow, reason string) error {
		var args T
		if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
			return fmt.Errorf("decoding job %d: %w", row.ID, err)
		}
		return a.Abandon(ctx, &river.Job[T]{JobRow: row, Args: args}, reason)
	}
}

// watchOrphans rescues orphaned jobs now and every OrphanCheckInterval
// until stop closes.
func (j *Jobs) watchOrphans(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()
	t := time.NewTicker(j.cfg.OrphanCheckInterval)
	defer t.Stop()
	for {
		if n, err := j.RescueOrphans(ctx); err != nil && ctx.Err() == nil {
			j.logger.WarnContext(ctx, "jobs: looking for orphaned jobs", "err", err)
		} else if n > 0 {
			j.logger.InfoContext(ctx, "jobs: rescued jobs whose process died", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RescueOrphans finds the jobs left running by processes that died (their
// liveness lock is free) and makes them available to run again at once, or
// abandons and discards them when that was their last attempt. It returns
// how many it rescued; it does nothing while another process is rescuing,
// or on a client that does not work jobs.
func (j *Jobs) RescueOrphans(ctx context.Context) (int, error) {
	if j.live == nil || j.workers == nil {
		return 0, nil
	}
	j.rescueMu.Lock()
	defer j.rescueMu.Unlock()
	var n int
	_, err := j.live.exclusive(ctx, func() error {
		res, err := j.client.JobList(ctx, river.NewJobListParams().States(rivertype.JobStateRunning).First(1000))
		if err != nil {
			return err
		}
		dead := map[string]bool{}
		for _, row := range res.Jobs {
			if len(row.AttemptedBy) == 0 {
				continue
			}
			owner := row.AttemptedBy[len(row.AttemptedBy)-1]
			if owner == j.id || !strings.HasPrefix(owner, clientIDPrefix) {
				continue
			}
			isDead, seen := dead[owner]
			if !seen {
				alive, err := j.live.alive(ctx, owner)
				if err != nil {
					return err
				}
				isDead, dead[owner] = !alive, !alive
			}
			if !isDead {
				continue
			}
			if err := j.rescue(ctx, row, owner); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// rescue ends the dead attempt of row: available again at once while
// attempts remain, else abandoned and discarded. River's own "set state if
// still running" step does it, so a job that ended meanwhile is left alone.
func (j *Jobs) rescue(ctx context.Context, row *rivertype.JobRow, owner string) error {
	now := time.Now().UTC()
	reason := fmt.Sprintf("the process working attempt %d (%s) died", row.Attempt, owner)
	errData, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: row.Attempt, Error: reason})
	if err != nil {
		return err
	}
	p := riverdriver.JobSetStateErrorAvailable(row.ID, now, errData, nil)
	ev := eventOf(row)
	ev.State, ev.Error = StateRetryable, reason
	if row.Attempt >= row.MaxAttempts {
		if abandon := j.abandoners[row.Kind]; abandon != nil {
			if err := abandon(ctx, row, reason); err != nil {
				return fmt.Errorf("abandoning job %d: %w", row.ID, err)
			}
		}
		p = riverdriver.JobSetStateDiscarded(row.ID, now, errData, nil)
		ev.State = StateDiscarded
	}
	_, err = j.exec.JobSetStateIfRunningMany(ctx, &riverdriver.JobSetStateIfRunningManyParams{
		ID: []int64{p.ID}, Attempt: []*int{p.Attempt}, ErrData: [][]byte{p.ErrData}, FinalizedAt: []*time.Time{p.FinalizedAt},
		MetadataDoMerge: []bool{p.MetadataDoMerge}, MetadataUpdates: [][]byte{p.MetadataUpdates},
		ScheduledAt: []*time.Time{p.ScheduledAt}, State: []rivertype.JobState{p.State},
	})
	if err != nil {
		return fmt.Errorf("rescuing job %d: %w", row.ID, err)
	}
	j.logger.WarnContext(ctx, "jobs: rescued a job whose process died", "job", row.ID, "kind", row.Kind, "attempt", row.Attempt, "state", p.State, "dead_client", owner)
	j.emit(ev)
	return nil
}
