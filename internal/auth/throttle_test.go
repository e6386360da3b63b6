package auth

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/loginthrottle"
	"github.com/geopub/geopub/internal/apperr"
)

// grantFunc signs in at the test clock and returns the error code ("" for
// success) and, for a 429, its Retry-After.
func grantFunc(t *testing.T, s *Service) func(email, pw, addr string) (apperr.Code, int) {
	return func(email, pw, addr string) (apperr.Code, int) {
		t.Helper()
		_, err := s.PasswordGrant(context.Background(), email, pw, addr)
		if err == nil {
			return "", 0
		}
		e := apperr.As(err)
		if e.Code == apperr.Internal {
			t.Fatalf("PasswordGrant: %v", err)
		}
		return e.Code, e.RetryAfter
	}
}

// Issue 11, defect 10: five wrong passwords for an e-mail address locked
// the account for 15 minutes, even for its owner elsewhere. Now the
// guessing address waits, with a growing delay, and the owner signs in from
// another address at once.
func TestThrottleSparesOwnerElsewhere(t *testing.T) {
	s, clock := newTestService(t, Config{})
	createUser(t, s, "bob@example.com", "bob-password", false)
	grant := grantFunc(t, s)
	const guesser, owner = "192.0.2.1", "198.51.100.9"
	for i := range 5 {
		if code, _ := grant("bob@example.com", "wrong", guesser); code != apperr.Unauthenticated {
			t.Fatalf("failure %d: %s, want 401", i+1, code)
		}
		clock.advance(time.Second)
	}
	if code, _ := grant("BOB@example.com", "bob-password", owner); code != "" {
		t.Fatalf("owner from another address after 5 failures elsewhere: %s, want success", code)
	}
	// The guessing address waits, even with the right password.
	code, wait := grant("bob@example.com", "bob-password", guesser)
	if code != apperr.TooManyRequests || wait != 29 {
		t.Fatalf("guesser after 5 failures: %s, Retry-After %d; want 429, 29", code, wait)
	}
	// The delay grows with each further attempt: 30 s, 60 s, 120 s.
	for _, want := range []int{60, 120} {
		clock.advance(time.Duration(wait) * time.Second)
		if code, _ := grant("bob@example.com", "wrong", guesser); code != apperr.Unauthenticated {
			t.Fatalf("after waiting: %s, want 401", code)
		}
		if code, wait = grant("bob@example.com", "bob-password", guesser); code != apperr.TooManyRequests || wait != want {
			t.Fatalf("next wait: %s, %d s; want 429, %d s", code, wait, want)
		}
	}
	// Other accounts from the guessing address are not held back by this
	// pair, and after its wait the right password gets in and resets it.
	createUser(t, s, "cy@example.com", "cy-password", false)
	if code, _ := grant("cy@example.com", "cy-password", guesser); code != "" {
		t.Fatalf("another account from the guessing address: %s", code)
	}
	clock.advance(time.Duration(wait) * time.Second)
	if code, _ := grant("bob@example.com", "bob-password", guesser); code != "" {
		t.Fatalf("after the wait: %s, want success", code)
	}
	if n, _ := s.client.LoginThrottle.Query().Where(loginthrottle.Key("pair:bob@example.com|" + guesser)).Count(context.Background()); n != 0 {
		t.Error("success kept the pair's count")
	}
}

// One address guessing over many accounts meets the per-address limit.
func TestThrottleAddressAcrossAccounts(t *testing.T) {
	s, _ := newTestService(t, Config{MaxFailures: 3, AddrMaxFailures: 6})
	grant := grantFunc(t, s)
	for i := range 6 {
		if code, _ := grant(fmt.Sprintf("u%d@example.com", i), "wrong", "192.0.2.1"); code != apperr.Unauthenticated {
			t.Fatalf("failure %d: %s", i+1, code)
		}
	}
	if code, _ := grant("fresh@example.com", "wrong", "192.0.2.1"); code != apperr.TooManyRequests {
		t.Fatalf("7th account from one address: %s, want 429", code)
	}
	if code, _ := grant("fresh@example.com", "wrong", "192.0.2.2"); code != apperr.Unauthenticated {
		t.Fatalf("another address: %s, want 401", code)
	}
}

// Distributed guessing of one account meets the per-account ceiling: an
// address that has failed on the account waits, a clean one (the owner)
// does not.
func TestThrottleAccountCeiling(t *testing.T) {
	s, _ := newTestService(t, Config{MaxFailures: 3, AccountMaxFailures: 4})
	createUser(t, s, "eve@example.com", "eve-password", false)
	grant := grantFunc(t, s)
	for i := range 4 {
		if code, _ := grant("eve@example.com", "wrong", fmt.Sprintf("192.0.2.%d", i+1)); code != apperr.Unauthenticated {
			t.Fatalf("failure %d: %s", i+1, code)
		}
	}
	if code, _ := grant("eve@example.com", "wrong", "192.0.2.1"); code != apperr.TooManyRequests {
		t.Fatalf("second try from an address that failed: %s, want 429", code)
	}
	if code, _ := grant("eve@example.com", "eve-password", "203.0.113.7"); code != "" {
		t.Fatalf("owner from a clean address: %s, want success", code)
	}
	// A fresh address gets its one try; then it waits too.
	if code, _ := grant("eve@example.com", "wrong", "203.0.113.8"); code != apperr.Unauthenticated {
		t.Fatalf("fresh address: %s, want 401", code)
	}
	if code, _ := grant("eve@example.com", "wrong", "203.0.113.8"); code != apperr.TooManyRequests {
		t.Fatalf("fresh address, second try: %s, want 429", code)
	}
}

// An IPv6 client counts as its /64 network.
func TestThrottleIPv6Network(t *testing.T) {
	s, _ := newTestService(t, Config{MaxFailures: 2})
	grant := grantFunc(t, s)
	grant("x@example.com", "wrong", "2001:db8:1:2::1")
	grant("x@example.com", "wrong", "2001:db8:1:2:ffff::9")
	if code, _ := grant("x@example.com", "wrong", "2001:db8:1:2::77"); code != apperr.TooManyRequests {
		t.Fatalf("third address of one /64: %s, want 429", code)
	}
	if code, _ := grant("x@example.com", "wrong", "2001:db8:1:3::1"); code != apperr.Unauthenticated {
		t.Fatalf("another /64: %s, want 401", code)
	}
}

// A count is forgotten a FailureWindow after its last wait ended.
func TestThrottleForgets(t *testing.T) {
	s, clock := newTestService(t, Config{MaxFailures: 2, FailureWindow: time.Minute, ThrottleDelay: 10 * time.Second})
	grant := grantFunc(t, s)
	grant("d@example.com", "wrong", "192.0.2.1")
	grant("d@example.com", "wrong", "192.0.2.1")
	clock.advance(10*time.Second + time.Minute)
	for i := range 2 {
		if code, _ := grant("d@example.com", "wrong", "192.0.2.1"); code != apperr.Unauthenticated {
			t.Fatalf("attempt %d after the window: %s, want a fresh count", i+1, code)
		}
	}
}

// TestBeginAttemptBurst checks that parallel attempts cannot outrun the
// limit: only MaxFailures of them get to check a password.
func TestBeginAttemptBurst(t *testing.T) {
	const limit, n = 5, 20
	s, _ := newTestService(t, Config{MaxFailures: limit, FailureWindow: time.Minute})
	ctx := context.Background()
	keys := s.throttleKeys("x@example.com", "192.0.2.1")
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() { errs <- s.beginAttempt(ctx, keys) })
	}
	wg.Wait()
	close(errs)
	admitted := 0
	for err := range errs {
		switch {
		case err == nil:
			admitted++
		case apperr.CodeOf(err) == apperr.TooManyRequests:
		default:
			t.Fatal(err)
		}
	}
	if admitted != limit {
		t.Errorf("%d of %d parallel attempts admitted, want %d", admitted, n, limit)
	}
	row, err := s.client.LoginThrottle.Query().Where(loginthrottle.Key(keys[0].key)).Only(ctx)
	if err != nil || row.Failures != limit || row.BlockedUntil == nil {
		t.Fatalf("row %+v, %v; want %d attempts and a wait", row, err, limit)
	}
}
