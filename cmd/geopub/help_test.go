package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command asked for help prints it to stdout and stops: no server
// starts, no database is opened or migrated, no user is created, and main
// exits 0 (errHelp is not a failure).
func TestHelpPrintsAndHasNoSideEffect(t *testing.T) {
	cases := [][]string{
		{"-h"}, {"--help"}, {"help"},
		{"serve", "-h"}, {"serve", "--help"},
		{"worker", "-h"},
		{"migrate", "-h"}, {"migrate", "--help"},
		{"user", "-h"},
		{"user", "create", "-h"},
		{"user", "create", "--email", "a@example.com", "--password", "correct horse", "-h"},
		{"search", "-h"}, {"search", "reindex", "-h"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			t.Setenv("GEOPUB_DATA_DIR", dir)
			t.Setenv("GEOPUB_DATABASE_URL", "")
			t.Setenv("GEOPUB_ADDR", "127.0.0.1:1") // a server that started would fail to listen here
			var out, errOut bytes.Buffer
			err := run(context.Background(), args, &out, &errOut)
			if !errors.Is(err, errHelp) {
				t.Fatalf("run = %v, want errHelp\nstderr: %s", err, errOut.String())
			}
			if !strings.Contains(out.String(), "usage") {
				t.Errorf("stdout has no usage:\n%s", out.String())
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("help touched the data directory %s (stat: %v)", dir, err)
			}
		})
	}
}

func TestServeHelpNamesFlagsPlainly(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"serve", "-h"}, &out, &bytes.Buffer{}); !errors.Is(err, errHelp) {
		t.Fatal(err)
	}
	help := out.String()
	if strings.Contains(help, "-workers geopub worker") || !strings.Contains(help, "-workers int") {
		t.Errorf("the -workers flag reads badly in the help:\n%s", help)
	}
}

// A bad flag is a usage error (exit 2) and prints the flags to stderr.
func TestBadFlagIsUsageError(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"migrate", "--no-such-flag"}, &out, &errOut)
	var ue usageError
	if !errors.As(err, &ue) || exitCode(err) != 2 {
		t.Fatalf("run = %v, want a usage error", err)
	}
	if !strings.Contains(errOut.String(), "-data-dir") {
		t.Errorf("stderr does not list the flags:\n%s", errOut.String())
	}
}

// --log-level takes slog's level names; anything else is a usage error
// before the server starts.
func TestLogLevelFlag(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"serve", "-h"}, &out, &bytes.Buffer{}); !errors.Is(err, errHelp) || !strings.Contains(out.String(), "-log-level") {
		t.Fatalf("serve -h does not list -log-level: %v\n%s", err, out.String())
	}
	t.Setenv("GEOPUB_DATA_DIR", filepath.Join(t.TempDir(), "data"))
	err := run(context.Background(), []string{"worker", "--log-level", "loud"}, &bytes.Buffer{}, &bytes.Buffer{})
	if exitCode(err) != 2 {
		t.Fatalf("worker --log-level loud = %v, want a usage error", err)
	}
}
