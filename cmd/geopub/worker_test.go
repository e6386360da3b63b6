package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/store"
)

// `geopub worker` migrates, works a job inserted by another process's
// insert-only client, and stops cleanly on cancellation (SIGINT/SIGTERM).
func TestWorkerCommand(t *testing.T) {
	dir := t.TempDir()

	bg := context.Background()
	st, err := store.OpenAndMigrate(bg, store.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := jobs.MigrateRiver(bg, st); err != nil {
		t.Fatal(err)
	}
	// Migrated first: store.Migrate does not serialise concurrent
	// migrators of one SQLite file.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"worker", "--data-dir", dir, "--database-url", "", "--stop-timeout", "2s"}, io.Discard, io.Discard)
	}()
	ins, err := jobs.New(st, jobs.Config{InsertOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	id, err := ins.Insert(bg, jobs.PingArgs{Note: "cli"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		info, err := ins.State(bg, id)
		if err != nil {
			t.Fatal(err)
		}
		if info.State == jobs.StateCompleted {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("worker exited early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("ping job is %s, want completed", info.State)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("worker did not stop")
	}
}
