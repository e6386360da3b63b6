package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/testtier"
	"github.com/geopub/geopub/internal/users"
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

// Issue 24, point 25: `geopub worker` had no health endpoint for its
// supervisor. --health-addr serves /healthz (process up) and /readyz
// (database and blob storage reachable, job workers running) with the
// same checks as serve's.
func TestWorkerHealthEndpoint(t *testing.T) {
	testtier.FullOnly(t, "starts processes")
	dir := t.TempDir()
	addr := freeAddr(t)
	p := startProcess(t, "worker", "--data-dir", dir, "--database-url", "", "--health-addr", addr, "--stop-timeout", "2s")
	base := "http://" + addr
	waitReady(t, p, base)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
			t.Errorf("worker %s = %d %q", path, resp.StatusCode, body)
		}
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		t.Fatal("worker did not stop")
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the health address still answers after the worker stopped")
	}
}

// Issue 24, point 25: a process whose secret key differs from the one the
// stored credentials were sealed under started, and failed credentialed
// scans later ("cannot be decrypted"). It now refuses to start, naming
// the setting; with the right key it starts.
func TestStartRefusesAnotherSecretKey(t *testing.T) {
	testtier.FullOnly(t, "starts processes")
	dir := t.TempDir()
	keyA := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, secrets.KeySize))
	keyB := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{2}, secrets.KeySize))
	ctx := context.Background()
	st, err := store.OpenAndMigrate(ctx, store.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := secrets.ParseKey(keyA)
	box, _ := secrets.New(k)
	sealed, err := box.Seal("hunter2")
	if err != nil {
		t.Fatal(err)
	}
	u, err := users.Create(ctx, st.Client, users.New{Email: "keys@example.com", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Client.Source.Create().SetType(source.TypeArcgis).SetTitle("sealed").SetUserID(u.ID).
		SetUsername("reader").SetPassword(sealed).Save(ctx); err != nil {
		t.Fatal(err)
	}
	st.Close()

	for _, cmd := range []string{"serve", "worker"} {
		args := []string{cmd, "--data-dir", dir, "--database-url", "", "--secret-key", keyB}
		if cmd == "serve" {
			args = append(args, "--addr", freeAddr(t))
		}
		p := startProcess(t, args...)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s with another secret key did not refuse to start", cmd)
		}
		if p.cmd.ProcessState.ExitCode() == 0 || !strings.Contains(p.Logs(), "GEOPUB_SECRET_KEY") ||
			!strings.Contains(p.Logs(), "another secret key") {
			t.Errorf("%s with another key: exit %d, %s", cmd, p.cmd.ProcessState.ExitCode(), tail(p.Logs()))
		}
	}
	addr := freeAddr(t)
	p := startProcess(t, "serve", "--data-dir", dir, "--database-url", "", "--secret-key", keyA, "--addr", addr)
	waitReady(t, p, "http://"+addr)
}
