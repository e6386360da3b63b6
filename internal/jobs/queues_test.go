package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// A burst of one user's jobs runs back to back within the per-user limit:
// each job that ends hands its slot to the user's next waiting job, so
// none waits out the snooze (an hour here, so the test would time out if
// a job depended on it).
func TestPerUserBurstHandsOn(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		cfg := testConfig()
		cfg.Workers, cfg.PerUser, cfg.FairSnooze = 4, 1, time.Hour
		j, rec, _ := start(t, st, cfg)
		var ids []int64
		for i := range 8 {
			id, err := j.Insert(context.Background(), recordArgs{Name: string(rune('a' + i)), Sleep: 30 * time.Millisecond}, jobs.For(7, false))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		for _, id := range ids {
			waitState(t, j, id, jobs.StateCompleted)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if rec.maxActive != 1 {
			t.Errorf("%d of the user's jobs ran at once, want the limit, 1", rec.maxActive)
		}
	})
}

// Handing a slot on never revives a job cancelled while it waited.
func TestPerUserHandOnSkipsCancelled(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		cfg := testConfig()
		cfg.Workers, cfg.PerUser, cfg.FairSnooze = 4, 1, time.Hour
		j, rec, _ := start(t, st, cfg)
		ctx := context.Background()
		first, err := j.Insert(ctx, recordArgs{Name: "first", Block: true}, jobs.For(7, false))
		if err != nil {
			t.Fatal(err)
		}
		<-rec.started
		second, err := j.Insert(ctx, recordArgs{Name: "second"}, jobs.For(7, false))
		if err != nil {
			t.Fatal(err)
		}
		third, err := j.Insert(ctx, recordArgs{Name: "third"}, jobs.For(7, false))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Cancel(ctx, second); err != nil {
			t.Fatal(err)
		}
		close(rec.release)
		waitState(t, j, first, jobs.StateCompleted)
		waitState(t, j, third, jobs.StateCompleted)
		if info := waitState(t, j, second, jobs.StateCancelled); rec.count("second") != 0 {
			t.Errorf("the cancelled job ran: %+v", info)
		}
	})
}

// Jobs that arrive while a slot is being handed on never overtake the job
// it is handed to: a younger job fetched at that moment gives way to the
// older one made due, so the limit holds while a user's bursts overlap.
func TestPerUserLimitHoldsAsJobsArrive(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		cfg := testConfig()
		cfg.Workers, cfg.PerUser, cfg.FairSnooze = 6, 2, time.Hour
		j, rec, _ := start(t, st, cfg)
		var ids []int64
		for wave := range 4 {
			for i := range 8 {
				id, err := j.Insert(context.Background(), recordArgs{Name: fmt.Sprintf("w%d-%d", wave, i), Sleep: 10 * time.Millisecond}, jobs.For(7, false))
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			time.Sleep(35 * time.Millisecond)
		}
		for _, id := range ids {
			waitState(t, j, id, jobs.StateCompleted)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if rec.maxActive != 2 {
			t.Errorf("%d of the user's jobs ran at once, want the limit, 2", rec.maxActive)
		}
	})
}

// Issue 24, 0d: one user's four slow URL sources kept another user's URL
// source and the first user's own upload scan queued for a minute and
// more. A user may never hold every remote worker, and their downloads
// count apart from their local work.
func TestSlowDownloadsHoldNoOneElsesSlot(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		cfg := testConfig()
		cfg.Workers, cfg.RemoteWorkers, cfg.PerUser, cfg.FairSnooze = 2, 2, 2, time.Hour
		j, rec, _ := start(t, st, cfg)
		ctx := context.Background()
		var slow []int64
		for i := range 4 {
			id, err := j.Insert(ctx, recordArgs{Name: fmt.Sprintf("slow %d", i), Block: true}, jobs.For(7, true))
			if err != nil {
				t.Fatal(err)
			}
			slow = append(slow, id)
		}
		<-rec.started
		other, err := j.Insert(ctx, recordArgs{Name: "another user's download"}, jobs.For(8, true))
		if err != nil {
			t.Fatal(err)
		}
		upload, err := j.Insert(ctx, recordArgs{Name: "the same user's upload"}, jobs.For(7, false))
		if err != nil {
			t.Fatal(err)
		}
		waitState(t, j, other, jobs.StateCompleted)
		waitState(t, j, upload, jobs.StateCompleted)
		rec.mu.Lock()
		active := rec.maxActive
		rec.mu.Unlock()
		close(rec.release)
		for _, id := range slow {
			waitState(t, j, id, jobs.StateCompleted)
		}
		if rec.count("slow 0")+rec.count("slow 1")+rec.count("slow 2")+rec.count("slow 3") != 4 {
			t.Error("the slow downloads did not all run once")
		}
		t.Logf("at most %d jobs at once", active)
	})
}
