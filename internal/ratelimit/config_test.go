package ratelimit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseForms(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "limits.json")
	doc := `{"sync_every": "500ms", "policies": {"reads": {"quota": 600, "window": "1m", "anonymous_quota": 60},
		"tiles": {"quota": 6000, "window": "60s"}}}`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[Class]Policy{
		Reads: {Quota: 600, Window: time.Minute, Anonymous: 60},
		Tiles: {Quota: 6000, Window: time.Minute},
	}
	for _, spec := range []string{doc, file} {
		cfg, err := Parse(spec)
		if err != nil {
			t.Fatalf("%.20s: %v", spec, err)
		}
		if cfg.SyncEvery != 500*time.Millisecond || len(cfg.Policies) != 2 ||
			cfg.Policies[Reads] != want[Reads] || cfg.Policies[Tiles] != want[Tiles] {
			t.Fatalf("%.20s: got %+v", spec, cfg)
		}
	}
	cfg, err := Parse("reads=600/1m, writes=60/1h")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Policies[Reads] != (Policy{Quota: 600, Window: time.Minute}) || cfg.Policies[Writes] != (Policy{Quota: 60, Window: time.Hour}) {
		t.Fatalf("compact: got %+v", cfg)
	}
	for _, off := range []string{"", " off "} {
		if cfg, err := Parse(off); err != nil || cfg.Enabled() {
			t.Fatalf("%q: %+v %v", off, cfg, err)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	for spec, want := range map[string]string{
		"reads=600":                             "class=quota/window",
		"bogus=1/1m":                            `unknown route class "bogus"`,
		"reads=0/1m":                            "quota must be",
		"reads=ten/1m":                          "not a whole number",
		"reads=10/1500ms":                       "window must be whole seconds",
		"reads=10/48h":                          "window must be whole seconds",
		"reads=10/1m,reads=5/1m":                "given twice",
		`{"policies": {"reads": {"quota": 5}}}`: "is not a duration",
		`{"sync_every": "1ms", "policies": {}}`: "sync_every",
		`{"polices": {}}`:                       "unknown field",
		"/nonexistent/limits.json":              "reading the rate limits",
	} {
		_, err := Parse(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", spec, err, want)
		}
	}
}
