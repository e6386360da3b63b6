package ratelimit

import (
	"net/http"
	"net/netip"
	"testing"
	"time"
)

func newTestLimiter(t testing.TB, policies map[Class]Policy) *Limiter {
	t.Helper()
	return New(Config{Policies: policies, SyncEvery: -1}, nil, nil)
}

func TestTakeCountsDownAndResets(t *testing.T) {
	l := newTestLimiter(t, map[Class]Policy{Reads: {Quota: 3, Window: time.Minute, Anonymous: 1}})
	start := time.Unix(1_800_000_020, 0) // 20 s into a minute window
	k := TokenKey(Reads, 7)
	for i, want := range []int64{2, 1, 0} {
		d := l.Take(k, start.Add(time.Duration(i)*time.Second))
		if !d.Allowed || d.Remaining != want || d.Quota != 3 || d.Reset != int64(40-i) {
			t.Fatalf("request %d: %+v", i+1, d)
		}
	}
	d := l.Take(k, start.Add(5*time.Second))
	if d.Allowed || d.Remaining != 0 || d.Reset != 35 {
		t.Fatalf("past the quota: %+v", d)
	}
	// Other buckets and classes are untouched.
	if d := l.Take(UserKey(Reads, 7), start); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("user 7 shares token 7's bucket: %+v", d)
	}
	if d := l.Take(TokenKey(Writes, 7), start); !d.Allowed || d.Quota != 0 {
		t.Fatalf("an unlimited class: %+v", d)
	}
	// The next window starts afresh.
	if d := l.Take(k, start.Add(40*time.Second)); !d.Allowed || d.Remaining != 2 || d.Reset != 60 {
		t.Fatalf("next window: %+v", d)
	}
	// Anonymous callers have their own quota, IPv6 by /64.
	a := AddrKey(Reads, netip.MustParseAddr("2001:db8::1"))
	b := AddrKey(Reads, netip.MustParseAddr("2001:db8::ffff:2"))
	if a != b {
		t.Fatal("two addresses of one /64 are two buckets")
	}
	if d := l.Take(a, start); !d.Allowed || d.Quota != 1 || d.Remaining != 0 {
		t.Fatalf("anonymous: %+v", d)
	}
	if d := l.Take(b, start); d.Allowed {
		t.Fatalf("anonymous past its quota: %+v", d)
	}
	if AddrKey(Reads, netip.MustParseAddr("::ffff:192.0.2.1")) != AddrKey(Reads, netip.MustParseAddr("192.0.2.1")) {
		t.Fatal("a mapped IPv4 address is not its IPv4 address")
	}
}

func TestHeaderValues(t *testing.T) {
	l := newTestLimiter(t, map[Class]Policy{Tiles: {Quota: 600, Window: time.Minute, Anonymous: 100}})
	h := http.Header{}
	p := l.policies[Tiles]
	p.setHeaders(h, TokenKey(Tiles, 1), Decision{Allowed: true, Quota: 600, Remaining: 599, Reset: 42})
	if got := h.Get("RateLimit-Policy"); got != `"tiles";q=600;w=60` {
		t.Errorf("RateLimit-Policy %q", got)
	}
	if got := h.Get("RateLimit"); got != `"tiles";r=599;t=42` {
		t.Errorf("RateLimit %q", got)
	}
	if h.Get("Retry-After") != "" {
		t.Error("Retry-After on an allowed answer")
	}
	h = http.Header{}
	p.setHeaders(h, AddrKey(Tiles, netip.MustParseAddr("192.0.2.1")), Decision{Quota: 100, Reset: 7})
	if h.Get("RateLimit-Policy") != `"tiles";q=100;w=60` || h.Get("RateLimit") != `"tiles";r=0;t=7` || h.Get("Retry-After") != "7" {
		t.Errorf("refused anonymous answer: %v", h)
	}
}

func TestNilLimiter(t *testing.T) {
	var l *Limiter
	if New(Config{}, nil, nil) != nil {
		t.Fatal("an empty configuration makes a limiter")
	}
	if d := l.Take(TokenKey(Reads, 1), time.Now()); !d.Allowed {
		t.Fatal("a nil limiter refuses")
	}
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if h := l.Fixed(Reads, nil)(next); h == nil {
		t.Fatal("no handler")
	}
	if err := l.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
}
