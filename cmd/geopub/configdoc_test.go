package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Issue 25: "Every operator flag has an environment twin, and a test holds
// docs/configuration.md against geopub serve -h."
func TestConfigurationDocMatchesFlags(t *testing.T) {
	flags := map[string]string{} // flag → environment variable, from -h
	for _, cmd := range []string{"serve", "worker"} {
		for f, env := range helpFlags(t, cmd) {
			if env == "" {
				t.Errorf("geopub %s -%s has no environment variable: give it one (GEOPUB_…) and name it in its usage as [GEOPUB_…]", cmd, f)
			}
			flags[f] = env
		}
	}
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := docFlags(string(doc))
	for f, env := range flags {
		docEnv, ok := rows[f]
		switch {
		case !ok:
			t.Errorf("--%s is missing from the table of docs/configuration.md", f)
		case docEnv != env:
			t.Errorf("docs/configuration.md gives --%s the variable %q, the flag reads %q", f, docEnv, env)
		}
	}
	for f := range rows {
		if _, ok := flags[f]; !ok {
			t.Errorf("docs/configuration.md has --%s, which neither geopub serve nor geopub worker takes", f)
		}
	}
}

var (
	// "  -addr string" starts a flag's entry in the help.
	helpFlag = regexp.MustCompile(`^  -([a-z0-9-]+)`)
	// "[GEOPUB_ADDR]" or "[GEOPUB_SECURE_COOKIES=1]" in its usage.
	helpEnv = regexp.MustCompile(`\[(GEOPUB_[A-Z0-9_]+)(?:=[^\]]*)?\]`)
	// "| `--addr` | `GEOPUB_ADDR` | …" (or "`GEOPUB_X=1`") in the table.
	docRow = regexp.MustCompile("^\\| `--([a-z0-9-]+)`[^|]*\\| (?:`(GEOPUB_[A-Z0-9_]+)(?:=[^`]*)?`)? *\\|")
)

// helpFlags reads `geopub cmd -h`: each flag and the variable its usage
// names ("" when none).
func helpFlags(t *testing.T, cmd string) map[string]string {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), []string{cmd, "-h"}, &out, &bytes.Buffer{}); !errors.Is(err, errHelp) {
		t.Fatalf("geopub %s -h: %v", cmd, err)
	}
	flags := map[string]string{}
	current := ""
	for _, line := range strings.Split(out.String(), "\n") {
		if m := helpFlag.FindStringSubmatch(line); m != nil {
			current = m[1]
			flags[current] = ""
		}
		if m := helpEnv.FindStringSubmatch(line); m != nil && current != "" {
			flags[current] = m[1]
		}
	}
	if len(flags) == 0 {
		t.Fatalf("geopub %s -h lists no flags:\n%s", cmd, out.String())
	}
	return flags
}

// docFlags reads the table of docs/configuration.md: each flag and its
// variable ("" when the row gives none).
func docFlags(doc string) map[string]string {
	rows := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		if m := docRow.FindStringSubmatch(line); m != nil {
			rows[m[1]] = m[2]
		}
	}
	return rows
}

// An environment variable that does not parse is refused as the flag
// itself would be: a usage error, before anything starts.
func TestBadEnvironmentIsUsageError(t *testing.T) {
	for _, env := range []string{"GEOPUB_WORKERS", "GEOPUB_REMOTE_WORKERS", "GEOPUB_JOBS_PER_USER", "GEOPUB_SCHEDULE_TICK",
		"GEOPUB_STOP_TIMEOUT", "GEOPUB_FETCH_TIMEOUT", "GEOPUB_FETCH_STALL_TIMEOUT", "GEOPUB_MAX_RASTER_CELLS", "GEOPUB_QUERY_INDEX_MB"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GEOPUB_DATA_DIR", t.TempDir())
			t.Setenv("GEOPUB_ADDR", "127.0.0.1:1")
			t.Setenv(env, "not-a-number")
			var ue usageError
			if err := run(context.Background(), []string{"serve"}, &bytes.Buffer{}, &bytes.Buffer{}); !errors.As(err, &ue) {
				t.Fatalf("%s=not-a-number: run = %v, want a usage error", env, err)
			}
		})
	}
}
