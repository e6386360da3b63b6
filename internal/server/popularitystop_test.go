package server_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/users"
)

// slowArgs is a job that runs until the test releases it.
type slowArgs struct{}

func (slowArgs) Kind() string { return "geopub_test_slow" }

type slowWorker struct {
	river.WorkerDefaults[slowArgs]
	running, release chan struct{}
}

func (w *slowWorker) Work(ctx context.Context, _ *river.Job[slowArgs]) error {
	close(w.running)
	select {
	case <-w.release:
	case <-ctx.Done():
	}
	return nil
}

// Issue 24, point 25: views not yet flushed were written only after the
// running jobs had finished, so a process stopped during a long job (and
// killed by its supervisor before the job ended) lost them. A graceful
// stop writes them first: counted views are in the database while a job
// still holds the stop.
func TestStopFlushesPopularityBeforeWaitingForJobs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		if _, err := jobs.MigrateRiver(ctx, st); err != nil {
			t.Fatal(err)
		}
		srv, err := server.NewWithStore(ctx, server.Config{
			DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			PopularityFlushEvery: -1, SkipSearchRebuild: true,
			Jobs: jobs.Config{Workers: 1, StopTimeout: time.Minute, FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond},
		}, st)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Resolver.Blobs.Close()
		w := &slowWorker{running: make(chan struct{}), release: make(chan struct{})}
		if err := jobs.Register(srv.Resolver.Jobs, w); err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(ctx); err != nil {
			t.Fatal(err)
		}
		u, err := users.Create(ctx, st.Client, users.New{Email: "pop@example.com", Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		l, err := st.Client.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName("counted").
			SetUserID(u.ID).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Resolver.Jobs.Insert(ctx, slowArgs{}, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-w.running:
		case <-time.After(20 * time.Second):
			t.Fatal("the slow job did not start")
		}
		for range 3 {
			srv.Resolver.Popularity.View(popularity.Layer, l.ID)
		}
		stopped := make(chan error, 1)
		go func() { stopped <- srv.Stop(ctx) }()
		defer func() {
			close(w.release)
			if err := <-stopped; err != nil {
				t.Errorf("stop: %v", err)
			}
		}()
		deadline := time.Now().Add(3 * time.Second)
		for {
			got, err := st.Client.Layer.Get(ctx, l.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.NumViews == 3 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("views in the database while a job holds the stop: %d, want 3", got.NumViews)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
