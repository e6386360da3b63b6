package auth

import (
	"context"
	"testing"

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
