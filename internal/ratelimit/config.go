package ratelimit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultSyncEvery is how often a process shares its counts when the
// configuration does not say.
const DefaultSyncEvery = time.Second

// Bounds of the sync interval.
const (
	MinSyncEvery = 50 * time.Millisecond
	MaxSyncEvery = time.Minute
)

// Config is the operator's rate limits: a policy per limited class. A zero
// Config limits nothing.
type Config struct {
	Policies map[Class]Policy
	// SyncEvery is how often counts are shared through the database
	// (DefaultSyncEvery when zero; never when negative: tests call Sync).
	SyncEvery time.Duration
}

// Enabled reports whether any class is limited.
func (c Config) Enabled() bool { return len(c.Policies) > 0 }

// fileConfig is the JSON form of a Config.
type fileConfig struct {
	SyncEvery string                `json:"sync_every"`
	Policies  map[string]filePolicy `json:"policies"`
}

type filePolicy struct {
	Quota     int64  `json:"quota"`
	Window    string `json:"window"`
	Anonymous int64  `json:"anonymous_quota"`
}

// Parse reads the --rate-limits value: empty or "off" for no limits; a
// JSON document when it starts with "{"; the compact form
// "reads=600/1m,tiles=6000/1m" (class=quota/window, comma-separated)
// when it holds "="; otherwise the path of a JSON file.
func Parse(spec string) (Config, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == "off":
		return Config{}, nil
	case strings.HasPrefix(spec, "{"):
		return parseJSON([]byte(spec))
	case strings.Contains(spec, "="):
		return parseCompact(spec)
	}
	b, err := os.ReadFile(spec)
	if err != nil {
		return Config{}, fmt.Errorf("reading the rate limits: %w", err)
	}
	return parseJSON(b)
}

func parseJSON(b []byte) (Config, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f fileConfig
	if err := dec.Decode(&f); err != nil {
		return Config{}, fmt.Errorf("rate limits: %w", err)
	}
	cfg := Config{Policies: map[Class]Policy{}}
	if f.SyncEvery != "" {
		d, err := time.ParseDuration(f.SyncEvery)
		if err != nil || d < MinSyncEvery || d > MaxSyncEvery {
			return Config{}, fmt.Errorf("rate limits: sync_every must be a duration from %s to %s", MinSyncEvery, MaxSyncEvery)
		}
		cfg.SyncEvery = d
	}
	for name, fp := range f.Policies {
		c, ok := ClassNamed(name)
		if !ok {
			return Config{}, unknownClass(name)
		}
		w, err := time.ParseDuration(fp.Window)
		if err != nil {
			return Config{}, fmt.Errorf("rate limit %s: window %q is not a duration (60s, 1m, 1h)", name, fp.Window)
		}
		p := Policy{Quota: fp.Quota, Window: w, Anonymous: fp.Anonymous}
		if err := p.check(c); err != nil {
			return Config{}, err
		}
		cfg.Policies[c] = p
	}
	return cfg, nil
}

func parseCompact(spec string) (Config, error) {
	cfg := Config{Policies: map[Class]Policy{}}
	for _, item := range strings.Split(spec, ",") {
		name, rule, ok := strings.Cut(strings.TrimSpace(item), "=")
		q, w, ok2 := strings.Cut(rule, "/")
		if !ok || !ok2 {
			return Config{}, fmt.Errorf("rate limit %q: write class=quota/window, e.g. reads=600/1m", item)
		}
		c, ok := ClassNamed(name)
		if !ok {
			return Config{}, unknownClass(name)
		}
		if _, dup := cfg.Policies[c]; dup {
			return Config{}, fmt.Errorf("rate limit %s is given twice", name)
		}
		quota, err := strconv.ParseInt(q, 10, 64)
		if err != nil {
			return Config{}, fmt.Errorf("rate limit %s: quota %q is not a whole number", name, q)
		}
		win, err := time.ParseDuration(w)
		if err != nil {
			return Config{}, fmt.Errorf("rate limit %s: window %q is not a duration (60s, 1m, 1h)", name, w)
		}
		p := Policy{Quota: quota, Window: win}
		if err := p.check(c); err != nil {
			return Config{}, err
		}
		cfg.Policies[c] = p
	}
	return cfg, nil
}

func unknownClass(name string) error {
	return fmt.Errorf("rate limits: unknown route class %q (classes: %s)", name, strings.Join(classNames[Reads:], ", "))
}
