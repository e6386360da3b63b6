package jobs_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	entgroup "github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// recordArgs is the test job: it fails its first Fail attempts, and with
// Block waits for its context (or Release) before returning.
type recordArgs struct {
	Name  string        `json:"name"`
	Fail  int           `json:"fail"`
	Block bool          `json:"block"`
	Sleep time.Duration `json:"sleep"`
}

func (recordArgs) Kind() string { return "test_record" }

// recorder is the worker for recordArgs; it records every attempt.
type recorder struct {
	river.WorkerDefaults[recordArgs]
	mu   sync.Mutex
	runs map[string]int
	// active and maxActive count the attempts working at once.
	active, maxActive int
	started           chan string
	release           chan struct{}
}

func newRecorder() *recorder {
	return &recorder{runs: map[string]int{}, started: make(chan string, 100), release: make(chan struct{})}
}

func (r *recorder) Work(ctx context.Context, job *river.Job[recordArgs]) error {
	r.mu.Lock()
	r.runs[job.Args.Name]++
	r.active++
	r.maxActive = max(r.maxActive, r.active)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.active--
		r.mu.Unlock()
	}()
	r.started <- job.Args.Name
	if job.Args.Sleep > 0 {
		select {
		case <-time.After(job.Args.Sleep):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if job.Args.Block {
		select {
		case <-r.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if job.Attempt <= job.Args.Fail {
		return fmt.Errorf("attempt %d fails on purpose", job.Attempt)
	}
	return nil
}

func (r *recorder) count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs[name]
}

// events collects JobEvents.
type events struct {
	mu  sync.Mutex
	all []jobs.JobEvent
}

func (e *events) add(_ context.Context, ev jobs.JobEvent) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) of(id int64) []jobs.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []jobs.State
	for _, ev := range e.all {
		if ev.JobID == id {
			out = append(out, ev.State)
		}
	}
	return out
}

func testConfig() jobs.Config {
	return jobs.Config{
		FetchPollInterval: 50 * time.Millisecond,
		FetchCooldown:     10 * time.Millisecond,
		Retry:             jobs.Backoff{Base: 20 * time.Millisecond, Max: 100 * time.Millisecond},
		StopTimeout:       5 * time.Second,
	}
}

// start builds, migrates and starts a job client with a recorder worker;
// it is stopped when the test ends.
func start(t *testing.T, st *store.Store, cfg jobs.Config) (*jobs.Jobs, *recorder, *events) {
	t.Helper()
	ctx := context.Background()
	if _, err := jobs.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	j, err := jobs.New(st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	if err := jobs.Register(j, river.Worker[recordArgs](rec)); err != nil {
		t.Fatal(err)
	}
	ev := &events{}
	j.OnEvent(ev.add)
	if err := j.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := j.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return j, rec, ev
}

// waitState polls a job until it is in want.
func waitState(t *testing.T, j *jobs.Jobs, id int64, want jobs.State) jobs.Info {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := j.State(context.Background(), id)
		if err != nil {
			t.Fatalf("State(%d): %v", id, err)
		}
		if info.State == want {
			return info
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %s, want %s", id, info.State, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitEvents waits until job id has produced want events.
func waitEvents(t *testing.T, ev *events, id int64, want ...jobs.State) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := ev.of(id)
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("events of job %d: %v, want %v", id, got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// createGroup writes the record a job would work on.
func createGroup(ctx context.Context, c *ent.Client, slug string) error {
	_, err := c.Group.Create().SetName(slug).SetURLSlug(slug).Save(ctx)
	return err
}

func countGroups(t *testing.T, st *store.Store, slug string) int {
	t.Helper()
	return st.Client.Group.Query().Where(entgroup.URLSlug(slug)).CountX(context.Background())
}

// A job inserted with its record in a committed transaction runs, and its
// events arrive in order.
func TestInsertTxCommitted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		j, rec, ev := start(t, st, testConfig())
		ctx := context.Background()
		var id int64
		err := st.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			if err := createGroup(ctx, c, "committed"); err != nil {
				return err
			}
			var err error
			id, err = j.InsertTx(ctx, tx, recordArgs{Name: "committed"}, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		info := waitState(t, j, id, jobs.StateCompleted)
		if info.Kind != "test_record" || info.Attempt != 1 {
			t.Errorf("info = %+v", info)
		}
		if n := rec.count("committed"); n != 1 {
			t.Errorf("runs = %d, want 1", n)
		}
		if n := countGroups(t, st, "committed"); n != 1 {
			t.Errorf("group rows = %d", n)
		}
		waitEvents(t, ev, id, jobs.StateRunning, jobs.StateCompleted)
	})
}

// A job inserted in a rolled-back transaction never exists, like its record.
func TestInsertTxRolledBack(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		j, rec, _ := start(t, st, testConfig())
		ctx := context.Background()
		var id int64
		boom := errors.New("boom")
		err := st.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			if err := createGroup(ctx, c, "rolledback"); err != nil {
				return err
			}
			var err error
			if id, err = j.InsertTx(ctx, tx, recordArgs{Name: "rolledback"}, nil); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx: %v", err)
		}
		if id == 0 {
			t.Fatal("no job id inside the transaction")
		}
		// A job inserted afterwards runs; by then the rolled-back one would
		// have too.
		after, err := j.Insert(ctx, recordArgs{Name: "after"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		waitState(t, j, after, jobs.StateCompleted)
		// (SQLite may reuse the rolled-back id for "after", so count rows.)
		var n int
		if err := st.DB.QueryRowContext(ctx, "SELECT count(*) FROM river_job").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%d job rows, want 1 (only the committed one)", n)
		}
		if n := rec.count("rolledback"); n != 0 {
			t.Errorf("rolled-back job ran %d times", n)
		}
		if n := countGroups(t, st, "rolledback"); n != 0 {
			t.Errorf("group rows = %d", n)
		}
	})
}

// InsertTx refuses a transaction that store.InTx did not open (PostgreSQL
// needs its pinned connection), rather than inserting outside it.
func TestInsertTxForeignTx(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		if st.Dialect != "postgres" {
			t.Skip("SQLite runs River on any *sql.Tx")
		}
		j, _, _ := start(t, st, testConfig())
		tx, err := st.DB.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := j.InsertTx(context.Background(), tx, recordArgs{Name: "x"}, nil); err == nil {
			t.Fatal("InsertTx on a foreign transaction succeeded")
		}
	})
}

// A failing job is retried with backoff until it succeeds.
func TestRetryThenSucceed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		j, rec, ev := start(t, st, testConfig())
		id, err := j.Insert(context.Background(), recordArgs{Name: "flaky", Fail: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		info := waitState(t, j, id, jobs.StateCompleted)
		if info.Attempt != 3 || len(info.Errors) != 2 {
			t.Errorf("info = %+v, want attempt 3 and 2 errors", info)
		}
		if n := rec.count("flaky"); n != 3 {
			t.Errorf("runs = %d, want 3", n)
		}
		waitEvents(t, ev, id,
			jobs.StateRunning, jobs.StateRetryable,
			jobs.StateRunning, jobs.StateRetryable,
			jobs.StateRunning, jobs.StateCompleted)
		ev.mu.Lock()
		defer ev.mu.Unlock()
		for _, e := range ev.all {
			if e.JobID == id && e.State == jobs.StateRetryable && e.Error == "" {
				t.Errorf("retryable event without error: %+v", e)
			}
		}
	})
}

// A job that fails every attempt is discarded after MaxAttempts.
func TestDiscardAfterMaxAttempts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		j, _, ev := start(t, st, testConfig())
		id, err := j.Insert(context.Background(), recordArgs{Name: "doomed", Fail: 99}, &river.InsertOpts{MaxAttempts: 2})
		if err != nil {
			t.Fatal(err)
		}
		waitState(t, j, id, jobs.StateDiscarded)
		waitEvents(t, ev, id, jobs.StateRunning, jobs.StateRetryable, jobs.StateRunning, jobs.StateDiscarded)
	})
}

// A scheduled job cancelled before it runs never runs.
func TestCancelScheduled(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		j, rec, ev := start(t, st, testConfig())
		ctx := context.Background()
		id, err := j.Insert(ctx, recordArgs{Name: "later"}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if info, _ := j.State(ctx, id); info.State != jobs.StateScheduled {
			t.Fatalf("state = %s, want scheduled", info.State)
		}
		state, err := j.Cancel(ctx, id)
		if err != nil || state != jobs.StateCancelled {
			t.Fatalf("Cancel = %s, %v", state, err)
		}
		waitState(t, j, id, jobs.StateCancelled)
		waitEvents(t, ev, id, jobs.StateCancelled)
		if rec.count("later") != 0 {
			t.Error("cancelled job ran")
		}
		if _, err := j.Cancel(ctx, 987654321); !errors.Is(err, jobs.ErrNotFound) {
			t.Errorf("Cancel(unknown) = %v", err)
		}
	})
}

// A running job is cancelled through its context and ends cancelled, not
// retried.
func TestCancelRunning(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		j, rec, ev := start(t, st, testConfig())
		ctx := context.Background()
		id, err := j.Insert(ctx, recordArgs{Name: "long", Block: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		<-rec.started
		if _, err := j.Cancel(ctx, id); err != nil {
			t.Fatal(err)
		}
		waitState(t, j, id, jobs.StateCancelled)
		waitEvents(t, ev, id, jobs.StateRunning, jobs.StateCancelled)
		if n := rec.count("long"); n != 1 {
			t.Errorf("runs = %d, want 1", n)
		}
	})
}

// Stop waits for a running job to finish; with a short StopTimeout it
// cancels a job that does not, and that job runs again on the next start.
func TestGracefulStop(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		if _, err := jobs.MigrateRiver(ctx, st); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig()
		cfg.StopTimeout = 300 * time.Millisecond
		j, err := jobs.New(st, cfg)
		if err != nil {
			t.Fatal(err)
		}
		rec := newRecorder()
		if err := jobs.Register(j, river.Worker[recordArgs](rec)); err != nil {
			t.Fatal(err)
		}
		if err := j.Start(ctx); err != nil {
			t.Fatal(err)
		}
		slow, err := j.Insert(ctx, recordArgs{Name: "slow", Sleep: 150 * time.Millisecond}, nil)
		if err != nil {
			t.Fatal(err)
		}
		stuck, err := j.Insert(ctx, recordArgs{Name: "stuck", Block: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		<-rec.started
		<-rec.started
		t0 := time.Now()
		if err := j.Stop(ctx); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		if d := time.Since(t0); d > 3*time.Second {
			t.Errorf("Stop took %s", d)
		}

		// A fresh client reads the outcome and works the interrupted job.
		j2, rec2, _ := start(t, st, testConfig())
		if info, err := j2.State(ctx, slow); err != nil || info.State != jobs.StateCompleted {
			t.Errorf("slow job after Stop: %+v, %v; want completed", info, err)
		}
		close(rec2.release)
		waitState(t, j2, stuck, jobs.StateCompleted)
		if rec2.count("stuck") != 1 {
			t.Errorf("interrupted job did not run again")
		}
	})
}

// A job left running by a process that died is rescued after
// RescueStuckJobsAfter and completed by another client.
func TestRescueAbandonedJob(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		if _, err := jobs.MigrateRiver(ctx, st); err != nil {
			t.Fatal(err)
		}
		// The crashed process: it took the job (state running, attempt 1)
		// and vanished without recording an outcome.
		ins, err := jobs.New(st, jobs.Config{InsertOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ins.Close()
		id, err := ins.Insert(ctx, recordArgs{Name: "orphan"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A client ID without the liveness prefix: only River's rescuer
		// takes it back.
		markRunning(t, st, id, "dead-client", time.Minute)
		cfg := testConfig()
		cfg.RescueStuckJobsAfter = time.Second
		cfg.JobTimeout = 500 * time.Millisecond
		j, rec, _ := start(t, st, cfg)
		info := waitState(t, j, id, jobs.StateCompleted)
		if info.Attempt != 2 || rec.count("orphan") != 1 {
			t.Errorf("rescued job: %+v, runs %d", info, rec.count("orphan"))
		}
	})
}

// MigrateRiver is idempotent, and an insert-only client refuses workers.
func TestMigrateIdempotentAndInsertOnly(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		first, err := jobs.MigrateRiver(ctx, st)
		if err != nil || len(first) == 0 {
			t.Fatalf("first MigrateRiver = %v, %v", first, err)
		}
		again, err := jobs.MigrateRiver(ctx, st)
		if err != nil || len(again) != 0 {
			t.Fatalf("second MigrateRiver = %v, %v", again, err)
		}
		ins, err := jobs.New(st, jobs.Config{InsertOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := jobs.Register(ins, river.Worker[recordArgs](newRecorder())); err == nil {
			t.Error("Register on an insert-only client succeeded")
		}
		// Inserted by an insert-only client (a serve replica), worked by
		// another (a worker process).
		id, err := ins.Insert(ctx, jobs.PingArgs{Note: "hi"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ins.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		j, _, _ := start(t, st, testConfig())
		waitState(t, j, id, jobs.StateCompleted)
	})
}
