package auth

import (
	"context"
	"testing"
	"time"
)

func TestSessionLifecycle(t *testing.T) {
	s, clock := newTestService(t, Config{SessionTTL: time.Hour})
	ctx := context.Background()
	u := createUser(t, s, "ida@example.com", "ida-password", false)

	sess, value, err := s.StartSession(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(value) != 43 || sess.TokenHash != HashKey(value) || sess.CsrfToken == "" ||
		!sess.ExpiresAt.Equal(clock.t.Add(time.Hour)) {
		t.Fatalf("session %+v, value %q", sess, value)
	}
	tests := []struct {
		name  string
		value string
		after time.Duration
		live  bool
	}{
		{"fresh", value, 0, true},
		{"unknown value", value + "x", 0, false},
		{"expired", value, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock.advance(tt.after)
			got, err := s.lookupSession(ctx, tt.value)
			if err != nil || (got != nil) != tt.live {
				t.Fatalf("lookupSession = %v, %v; want live=%v", got, err, tt.live)
			}
			if got != nil && got.Edges.User.ID != u.ID {
				t.Errorf("session user = %v", got.Edges.User)
			}
		})
	}
	if n := s.client.Session.Query().CountX(ctx); n != 0 {
		t.Errorf("expired session not deleted; %d left", n)
	}

	sess, _, _ = s.StartSession(ctx, u)
	if err := s.EndSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if err := s.EndSession(ctx, sess); err != nil {
		t.Errorf("ending an ended session: %v", err)
	}
}

func TestLockedUserSessionIsAnonymous(t *testing.T) {
	s, _ := newTestService(t, Config{})
	ctx := context.Background()
	u := createUser(t, s, "jo@example.com", "jo-password", false)
	_, value, _ := s.StartSession(ctx, u)
	s.client.User.UpdateOne(u).SetIsLocked(true).ExecX(ctx)
	if got, err := s.lookupSession(ctx, value); got != nil || err != nil {
		t.Errorf("locked user's session = %v, %v; want none", got, err)
	}
}
