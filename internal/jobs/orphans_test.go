package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// markRunning makes job id look taken by client `by` `ago` ago (attempt
// 1) and never finished: what a process killed mid-attempt leaves.
func markRunning(t *testing.T, st *store.Store, id int64, by string, ago time.Duration) {
	t.Helper()
	q := "UPDATE river_job SET state = 'running', attempt = 1, attempted_at = ?, attempted_by = ? WHERE id = ?"
	if st.Dialect == "postgres" {
		q = "UPDATE river_job SET state = 'running', attempt = 1, attempted_at = $1, attempted_by = ARRAY[$2] WHERE id = $3"
	}
	at := time.Now().Add(-ago).UTC()
	var attemptedAt any = at
	var attemptedBy any = by
	if st.Dialect != "postgres" {
		attemptedAt = at.Format("2006-01-02 15:04:05.000000")
		attemptedBy = `["` + by + `"]`
	}
	if _, err := st.DB.ExecContext(context.Background(), q, attemptedAt, attemptedBy, id); err != nil {
		t.Fatal(err)
	}
}

func (r *recorder) Abandon(_ context.Context, job *river.Job[recordArgs], reason string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs["abandoned:"+job.Args.Name]++
	r.runs["reason:"+reason]++
	return nil
}

// A job left running by a client whose process is gone (its liveness lock
// is free) runs again at once, long before River's stuck-job rescuer would
// take it (an hour by default); a job of a live client is left alone.
func TestRescueOrphanOfDeadProcess(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		live, liveRec, _ := start(t, st, testConfig())
		// Scheduled later, so that nothing takes them before markRunning.
		later := &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)}
		deadID, err := live.Insert(ctx, recordArgs{Name: "dead"}, later)
		if err != nil {
			t.Fatal(err)
		}
		liveID, err := live.Insert(ctx, recordArgs{Name: "live"}, later)
		if err != nil {
			t.Fatal(err)
		}
		// Taken just now, by a crashed process and by a live one.
		markRunning(t, st, deadID, "geopub-999999-0badc0ffee00-gone", 0)
		markRunning(t, st, liveID, live.ClientID(), 0)

		j, rec, _ := start(t, st, testConfig())
		info := waitState(t, j, deadID, jobs.StateCompleted)
		// Either client may run it once rescued.
		if info.Attempt != 2 || rec.count("dead")+liveRec.count("dead") != 1 || len(info.Errors) != 1 || !strings.Contains(info.Errors[0], "died") {
			t.Errorf("rescued job: %+v, runs %d+%d", info, rec.count("dead"), liveRec.count("dead"))
		}
		if n, err := j.RescueOrphans(ctx); n != 0 || err != nil {
			t.Fatalf("RescueOrphans with a live owner: %d, %v", n, err)
		}
		if info, _ := j.State(ctx, liveID); info.State != jobs.StateRunning {
			t.Fatalf("job of a live client: %+v", info)
		}
		// Its owner stops: the lock is free and the job is rescued.
		if err := live.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		// The periodic rescuer may get there first: then this finds none.
		if n, err := j.RescueOrphans(ctx); n > 1 || err != nil {
			t.Fatalf("RescueOrphans after the owner stopped: %d, %v", n, err)
		}
		waitState(t, j, liveID, jobs.StateCompleted)
	})
}

// A dead attempt that was the job's last is abandoned through the
// worker's Abandon (so the record it worked on can say so) and discarded.
func TestRescueOrphanOnLastAttempt(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		j, rec, _ := start(t, st, testConfig())
		id, err := j.Insert(ctx, recordArgs{Name: "last", Block: true}, &river.InsertOpts{MaxAttempts: 1, ScheduledAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		markRunning(t, st, id, "geopub-999999-0badc0ffee01-gone", 0)
		// The periodic rescuer may get there first: then this finds none.
		if n, err := j.RescueOrphans(ctx); n > 1 || err != nil {
			t.Fatalf("RescueOrphans: %d, %v", n, err)
		}
		info := waitState(t, j, id, jobs.StateDiscarded)
		if rec.count("abandoned:last") != 1 || rec.count("last") != 0 ||
			rec.count("reason:the process working attempt 1 (geopub-999999-0badc0ffee01-gone) died") != 1 || len(info.Errors) != 1 {
			t.Errorf("abandoned job %+v, runs %v", info, rec.runs)
		}
	})
}
