package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// ratelimitReplicas starts two services over one PostgreSQL database,
// each with its own store, as two replicas behind a balancer.
func ratelimitReplicas(t *testing.T, spec string, syncEvery time.Duration) (a, b *servertest.Env) {
	t.Helper()
	st := storetest.Open(t, dialect.Postgres, storetest.Options{})
	st2, err := store.Open(context.Background(), store.Config{DatabaseURL: st.DSN()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	return ratelimitEnv(t, st, spec, "", syncEvery), ratelimitEnv(t, st2, spec, "", syncEvery)
}

func ratelimitSync(t *testing.T, e *servertest.Env) {
	t.Helper()
	if err := e.Server.RateLimits.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Two replicas share one token's quota: with the syncs made by the test,
// what each admits is exactly what docs/ratelimit.md says.
func TestRateLimitReplicasShareTheQuota(t *testing.T) {
	a, b := ratelimitReplicas(t, "reads=10/1h", 0)
	u := a.NewUser(t, "Shared")
	read := servertest.Request{Path: "/licenses", Key: u.Key}
	admitted := func(e *servertest.Env, n int) (ok int) {
		for range n {
			switch res := e.Do(t, read); res.Status {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
			default:
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
		}
		return ok
	}
	if got := admitted(a, 6); got != 6 {
		t.Fatalf("replica a admitted %d of 6", got)
	}
	ratelimitSync(t, a)
	if got := admitted(b, 1); got != 1 {
		t.Fatal("replica b refused its first read")
	}
	ratelimitSync(t, b) // b knows 7 of 10 are spent
	if got := admitted(b, 5); got != 3 {
		t.Fatalf("replica b admitted %d after syncing, want 3", got)
	}
	ratelimitSync(t, b)
	// a used the key in its last syncs, so it reads the total back.
	ratelimitSync(t, a)
	if got := admitted(a, 3) + admitted(b, 3); got != 0 {
		t.Fatalf("the replicas admitted %d past the shared quota", got)
	}
}

// With the background sync, requests spread over both replicas are
// refused by both once the quota is spent, within the slack of two sync
// intervals' requests.
func TestRateLimitReplicasBackgroundSync(t *testing.T) {
	const every = 50 * time.Millisecond
	a, b := ratelimitReplicas(t, "reads=20/1h", every)
	u := a.NewUser(t, "Spread")
	read := servertest.Request{Path: "/licenses", Key: u.Key}
	ok, sent := 0, 0
	start := time.Now()
	for ok < 20 {
		for _, e := range []*servertest.Env{a, b} {
			sent++
			if e.Do(t, read).Status == http.StatusOK {
				ok++
			}
		}
		if sent > 200 {
			t.Fatalf("only %d of 200 reads admitted", ok)
		}
	}
	elapsed := time.Since(start)
	time.Sleep(3 * every)
	for i, e := range []*servertest.Env{a, b, a, b} {
		if res := e.Do(t, read); res.Status != http.StatusTooManyRequests {
			t.Fatalf("read %d after the quota was spent: status %d", i+1, res.Status)
		}
	}
	// The slack: at most the reads sent within two sync intervals.
	rate := float64(sent) / elapsed.Seconds()
	if slack := int(rate*2*every.Seconds()) + 2; ok > 20+slack {
		t.Fatalf("admitted %d of a quota of 20 (slack %d at %.0f reads/s)", ok, slack, rate)
	}
	t.Logf("admitted %d of a quota of 20, %d sent at %.0f reads/s", ok, sent, rate)
}
