package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Two limiters over one store stand for two processes: what one admits,
// the other counts once both have synced, on both stores.
func TestSyncSharesCountsAndPrunes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		now := time.Unix(1_800_000_020, 0)
		clock := func() time.Time { return now }
		cfg := Config{Policies: map[Class]Policy{Reads: {Quota: 10, Window: time.Minute}}, SyncEvery: -1}
		a, b := New(cfg, st, nil), New(cfg, st, nil)
		a.now, b.now = clock, clock
		k := TokenKey(Reads, 42)
		take := func(l *Limiter, n int) (admitted int) {
			for range n {
				if l.Take(k, now).Allowed {
					admitted++
				}
			}
			return admitted
		}
		sync := func(l *Limiter) {
			t.Helper()
			if err := l.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got := take(a, 6); got != 6 {
			t.Fatalf("a admitted %d of 6", got)
		}
		sync(a)
		if got := take(b, 1); got != 1 {
			t.Fatal("b refused its first request")
		}
		sync(b) // b learns a's 6: 7 of 10 are spent.
		if d := b.Take(k, now); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("b after sync: %+v", d)
		}
		if got := take(b, 5); got != 2 {
			t.Fatalf("b admitted %d more, want 2", got)
		}
		sync(b)
		// a has not seen the key since its sync: its first request is
		// decided on what it knew (the documented slack), and the sync
		// after it learns b's 4.
		if d := a.Take(k, now); !d.Allowed || d.Remaining != 3 {
			t.Fatalf("a before refreshing: %+v", d)
		}
		sync(a)
		if d := a.Take(k, now); d.Allowed || d.Remaining != 0 {
			t.Fatalf("a admitted past the shared quota: %+v", d)
		}
		sync(b)
		if d := b.Take(k, now); d.Allowed {
			t.Fatalf("b admitted past the shared quota: %+v", d)
		}
		var hits int64
		if err := st.DB.QueryRowContext(ctx, store.Rebind("SELECT hits FROM rate_limit_counters WHERE bucket = ?", st.Dialect == "postgres"),
			"reads:t:42").Scan(&hits); err != nil {
			t.Fatal(err)
		}
		if hits != 11 {
			t.Fatalf("the table holds %d hits, want 11", hits)
		}
		// A new window starts afresh; the ended one is deleted.
		now = now.Add(time.Minute)
		if got := take(a, 3); got != 3 {
			t.Fatalf("new window: a admitted %d of 3", got)
		}
		sync(a)
		var rows int
		if err := st.DB.QueryRowContext(ctx, "SELECT count(*) FROM rate_limit_counters").Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != 1 {
			t.Fatalf("%d rows after the window ended, want 1", rows)
		}
		// Stop shares what is pending.
		a.Take(k, now)
		if err := a.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if err := st.DB.QueryRowContext(ctx, "SELECT hits FROM rate_limit_counters").Scan(&hits); err != nil || hits != 4 {
			t.Fatalf("after Stop: %d hits (%v), want 4", hits, err)
		}
	})
}
