package auth

import (
	"context"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/loginthrottle"
	"github.com/geopub/geopub/internal/apperr"
)

func TestPasswordGrant(t *testing.T) {
	s, _ := newTestService(t, Config{})
	ctx := context.Background()
	alice := createUser(t, s, "alice@example.com", "alice-password", false)
	createUser(t, s, "locked@example.com", "locked-password", true)
	createUser(t, s, "remote@example.com", "", false)

	tests := []struct {
		name, email, password string
		code                  apperr.Code // "" for success
		message               string
	}{
		{"success", "alice@example.com", "alice-password", "", ""},
		{"e-mail case-insensitive", "  Alice@Example.COM ", "alice-password", "", ""},
		{"wrong password", "alice@example.com", "wrong-password", apperr.Unauthenticated, msgInvalidCredentials},
		{"unknown user", "nobody@example.com", "alice-password", apperr.Unauthenticated, msgInvalidCredentials},
		{"user without password", "remote@example.com", "anything-at-all", apperr.Unauthenticated, msgInvalidCredentials},
		{"locked user", "locked@example.com", "locked-password", apperr.Unauthenticated, msgAccountLocked},
		{"locked user, wrong password", "locked@example.com", "nope-nope", apperr.Unauthenticated, msgInvalidCredentials},
		{"missing e-mail", "", "alice-password", apperr.Invalid, "username: This field is required."},
		{"missing password", "alice@example.com", "", apperr.Invalid, "password: This field is required."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := s.PasswordGrant(ctx, tt.email, tt.password, "192.0.2.1")
			if tt.code == "" {
				if err != nil || u == nil || u.ID != alice.ID {
					t.Fatalf("PasswordGrant = %v, %v; want alice", u, err)
				}
				return
			}
			e := apperr.As(err)
			if u != nil || e.Code != tt.code || e.Message != tt.message {
				t.Fatalf("PasswordGrant error = %v (%s); want %s %q", err, e.Code, tt.code, tt.message)
			}
		})
	}
}

func TestPasswordGrantThrottle(t *testing.T) {
	window := 10 * time.Minute
	s, clock := newTestService(t, Config{MaxFailures: 3, FailureWindow: window})
	ctx := context.Background()
	createUser(t, s, "bob@example.com", "bob-password", false)
	grant := func(email, pw, addr string) apperr.Code {
		_, err := s.PasswordGrant(ctx, email, pw, addr)
		if err == nil {
			return ""
		}
		return apperr.CodeOf(err)
	}

	for i := range 3 {
		if code := grant("bob@example.com", "wrong", "192.0.2.1"); code != apperr.Unauthenticated {
			t.Fatalf("failure %d: code %s, want 401", i+1, code)
		}
		clock.advance(time.Second)
	}
	// Blocked now: even the right password is refused with 429.
	_, err := s.PasswordGrant(ctx, "BOB@example.com", "bob-password", "198.51.100.9")
	e := apperr.As(err)
	if e.Code != apperr.TooManyRequests || e.Code.HTTPStatus() != 429 {
		t.Fatalf("after 3 failures: %v; want 429", err)
	}
	if want := int(window.Seconds()) - 1; e.RetryAfter != want {
		t.Errorf("RetryAfter = %d, want %d", e.RetryAfter, want)
	}
	// The address is blocked too, for every e-mail address.
	if code := grant("someone@example.com", "whatever1", "192.0.2.1"); code != apperr.TooManyRequests {
		t.Errorf("other e-mail from the blocked address: %s, want 429", code)
	}
	// A different address and e-mail address are unaffected.
	if code := grant("carol@example.com", "whatever1", "203.0.113.5"); code != apperr.Unauthenticated {
		t.Errorf("unrelated attempt: %s, want 401", code)
	}

	clock.advance(window)
	if code := grant("bob@example.com", "bob-password", "192.0.2.1"); code != "" {
		t.Fatalf("after the block: %s, want success", code)
	}
	n, _ := s.client.LoginThrottle.Query().Where(loginthrottle.Key("email:bob@example.com")).Count(ctx)
	if n != 0 {
		t.Error("success did not reset the e-mail key")
	}
	n, _ = s.client.LoginThrottle.Query().Where(loginthrottle.Key("addr:192.0.2.1")).Count(ctx)
	if n != 1 {
		t.Error("success reset the address key")
	}
}

func TestThrottleWindowExpiresWithoutBlock(t *testing.T) {
	s, clock := newTestService(t, Config{MaxFailures: 3, FailureWindow: time.Minute})
	ctx := context.Background()
	createUser(t, s, "dan@example.com", "dan-password", false)
	// Two failures, a window later two more: never three in one window.
	for _, step := range []time.Duration{0, time.Second, time.Minute, time.Second} {
		clock.advance(step)
		if _, err := s.PasswordGrant(ctx, "dan@example.com", "wrong", ""); apperr.CodeOf(err) != apperr.Unauthenticated {
			t.Fatalf("got %v, want 401", err)
		}
	}
	if _, err := s.PasswordGrant(ctx, "dan@example.com", "dan-password", ""); err != nil {
		t.Fatalf("right password after spread-out failures: %v", err)
	}
	row, err := s.client.LoginThrottle.Query().Only(ctx)
	if err == nil {
		t.Errorf("unexpected throttle row left: %+v", row)
	}
}
