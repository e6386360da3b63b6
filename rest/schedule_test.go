package rest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/schedule"
	"github.com/geopub/geopub/internal/server"
)

// testTick is the scheduler's tick in these tests.
const testTick = 100 * time.Millisecond

func eachTicking(t *testing.T, fn func(t *testing.T, e *env)) {
	eachWith(t, func(c *server.Config) { c.ScheduleTick = testTick }, fn)
}

// scanCount counts a source's scans.
func scanCount(t *testing.T, e *env, sourceID int) int {
	return e.Store.Client.Scan.Query().Where(scan.SourceID(sourceID)).CountX(t.Context())
}

// waitFor polls cond for up to 20 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A source's scan_schedule: validated, and when due the scheduler (a
// River periodic job) starts one scan, advances the next run, and never
// doubles a run or a scan under way.
func TestScanSchedule(t *testing.T) {
	eachTicking(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		ctx := t.Context()
		files := map[string]string{"roads.geojson": fixtureFiles["roads.geojson"]}

		// Bad schedules: 400 naming the field, nothing written.
		before := e.Store.Client.Source.Query().CountX(ctx)
		for _, bad := range []string{"@often", "61 * * * *", "* * * *", "0 0 30 2 *"} {
			expectField(t, e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
				"type": "url", "title": "x", "url_remote": "http://127.0.0.1:9/x.zip", "scan_schedule": bad}}), "scan_schedule", "")
		}
		if e.Store.Client.Source.Query().CountX(ctx) != before {
			t.Fatal("a refused source was written")
		}

		archive := zipOf(t, files)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive) }))
		defer srv.Close()
		src := doJSON[sourceRecord](t, e, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "url", "title": "Nightly", "url_remote": srv.URL + "/data.zip", "scan_schedule": "@daily"}}, http.StatusCreated)
		waitScan(t, e, pub.Key, src.ID)
		var got struct {
			ScanSchedule *string `json:"scan_schedule"`
		}
		e.Do(t, req{Path: fmt.Sprintf("/sources/%d/", src.ID), Key: pub.Key}).JSON(t, &got)
		if got.ScanSchedule == nil || *got.ScanSchedule != "@daily" {
			t.Fatalf("scan_schedule %v", got.ScanSchedule)
		}
		row := e.Store.Client.Source.GetX(ctx, src.ID)
		if row.NextScanAt == nil || row.NextScanAt.Hour() != 0 || !row.NextScanAt.After(time.Now()) {
			t.Fatalf("next scan at %v", row.NextScanAt)
		}
		expectField(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/sources/%d/", src.ID), Key: pub.Key,
			Body: map[string]any{"scan_schedule": "* * * * * *"}}), "scan_schedule", "five fields")
		if r := e.Store.Client.Source.GetX(ctx, src.ID); r.ScanSchedule != "@daily" {
			t.Fatalf("a refused update changed the schedule: %q", r.ScanSchedule)
		}

		// Due: one scan is started and completes; the next run moves on.
		row.Update().SetNextScanAt(time.Now().Add(-time.Second)).ExecX(ctx)
		waitFor(t, "the scheduled scan", func() bool { return scanCount(t, e, src.ID) == 2 })
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scheduled scan %+v", sc)
		}
		time.Sleep(5 * testTick)
		if n := scanCount(t, e, src.ID); n != 2 {
			t.Fatalf("%d scans: a run was doubled", n)
		}
		if r := e.Store.Client.Source.GetX(ctx, src.ID); r.NextScanAt == nil || !r.NextScanAt.After(time.Now()) {
			t.Fatalf("next scan at %v", r.NextScanAt)
		}

		// A scan under way is not doubled: the run passes.
		busy := e.Store.Client.Scan.Create().SetSourceID(src.ID).SetUserID(pub.User.ID).SetStatus(scan.StatusScanning).SaveX(ctx)
		e.Store.Client.Source.UpdateOneID(src.ID).SetNextScanAt(time.Now().Add(-time.Second)).ExecX(ctx)
		waitFor(t, "the run to pass", func() bool {
			r := e.Store.Client.Source.GetX(ctx, src.ID)
			return r.NextScanAt != nil && r.NextScanAt.After(time.Now())
		})
		if n := scanCount(t, e, src.ID); n != 3 {
			t.Fatalf("%d scans beside one under way", n)
		}
		busy.Update().SetStatus(scan.StatusCancelled).ExecX(ctx)

		// Two ticks at once (two processes, or a restart mid-tick) start
		// one scan.
		e.Store.Client.Source.UpdateOneID(src.ID).SetNextScanAt(time.Now().Add(-time.Second)).ExecX(ctx)
		res := e.Server.Resolver
		s := &schedule.Scheduler{Store: e.Store, Jobs: res.Jobs, Notify: res.Notify, Logger: res.Logger}
		var wg sync.WaitGroup
		var failed atomic.Bool
		now := time.Now().UTC()
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.Tick(ctx, now); err != nil {
					failed.Store(true)
				}
			}()
		}
		wg.Wait()
		if failed.Load() {
			t.Fatal("a tick failed")
		}
		waitFor(t, "the raced scan", func() bool { return scanCount(t, e, src.ID) >= 4 })
		time.Sleep(5 * testTick)
		if n := scanCount(t, e, src.ID); n != 4 {
			t.Fatalf("%d scans after racing ticks", n)
		}

		// No schedule, no next run.
		e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/sources/%d/", src.ID), Key: pub.Key, Body: map[string]any{"scan_schedule": ""}})
		if r := e.Store.Client.Source.Query().Where(source.ID(src.ID)).OnlyX(ctx); r.NextScanAt != nil || r.ScanSchedule != "" {
			t.Fatalf("cleared schedule: %q %v", r.ScanSchedule, r.NextScanAt)
		}
	})
}
