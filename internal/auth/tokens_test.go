package auth

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/apperr"
)

func TestCreateToken(t *testing.T) {
	s, clock := newTestService(t, Config{})
	ctx := context.Background()
	u := createUser(t, s, "erin@example.com", "erin-password", false)
	future := clock.t.Add(time.Hour)
	past := clock.t.Add(-time.Second)

	tests := []struct {
		name      string
		spec      TokenSpec
		wantScope string
		badFields []string // fields the validation error must name
		wantRefs  []string
	}{
		{"defaults", TokenSpec{Name: "desktop"}, DefaultScopes.String(), nil, nil},
		{"explicit", TokenSpec{Name: "ci", Scope: "tokens:read query", ExpiresAt: &future,
			Referrers: []string{"*.Example.com"}}, "query tokens:read", nil, []string{"*.example.com"}},
		{"unknown scope", TokenSpec{Scope: "query bogus"}, "", []string{"scope"}, nil},
		{"expiry in the past", TokenSpec{ExpiresAt: &past}, "", []string{"expires_at"}, nil},
		{"bad referrer", TokenSpec{Referrers: []string{"http://x.com"}}, "", []string{"referrers"}, nil},
		{"name too long", TokenSpec{Name: strings.Repeat("n", 201)}, "", []string{"name"}, nil},
		{"every problem at once", TokenSpec{Name: strings.Repeat("n", 201), Scope: "bogus",
			ExpiresAt: &past, Referrers: []string{""}}, "", []string{"expires_at", "name", "referrers", "scope"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, key, err := s.CreateToken(ctx, u, tt.spec)
			if tt.badFields != nil {
				e := apperr.As(err)
				var got []string
				for f := range e.Fields {
					got = append(got, f)
				}
				slices.Sort(got)
				if e.Code != apperr.Invalid || !slices.Equal(got, tt.badFields) {
					t.Fatalf("CreateToken error = %v, fields %v; want fields %v", err, got, tt.badFields)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(key) != 32 || tok.KeyHash != HashKey(key) || tok.KeyHint != key[:5]+"..." {
				t.Errorf("key %q stored as hash %q hint %q", key, tok.KeyHash, tok.KeyHint)
			}
			if tok.Scope != tt.wantScope || !slices.Equal(tok.Referrers, tt.wantRefs) || tok.UserID != u.ID {
				t.Errorf("token = %+v", tok)
			}
			stored, err := s.client.Token.Get(ctx, tok.ID)
			if err != nil || stored.KeyHash != HashKey(key) || strings.Contains(stored.String(), key) {
				t.Errorf("stored token %v, %v", stored, err)
			}
		})
	}
}

func TestUpdateToken(t *testing.T) {
	s, clock := newTestService(t, Config{})
	ctx := context.Background()
	u := createUser(t, s, "fay@example.com", "fay-password", false)
	future := clock.t.Add(time.Hour)
	tok, _, err := s.CreateToken(ctx, u, TokenSpec{Name: "a", ExpiresAt: &future, Referrers: []string{"a.com"}})
	if err != nil {
		t.Fatal(err)
	}
	name, scope, later, none := "b", "query", clock.t.Add(2*time.Hour), []string{}

	tok, err = s.UpdateToken(ctx, tok, TokenPatch{Name: &name, Scope: &scope, ExpiresAt: &later})
	if err != nil || tok.Name != "b" || tok.Scope != "query" || !tok.ExpiresAt.Equal(later) || len(tok.Referrers) != 1 {
		t.Fatalf("update 1: %+v, %v", tok, err)
	}
	hash := tok.KeyHash
	tok, err = s.UpdateToken(ctx, tok, TokenPatch{ClearExpiresAt: true, Referrers: &none})
	if err != nil || tok.ExpiresAt != nil || len(tok.Referrers) != 0 || tok.Name != "b" || tok.KeyHash != hash {
		t.Fatalf("update 2: %+v, %v", tok, err)
	}
	past := clock.t.Add(-time.Minute)
	bad := "nope"
	for _, p := range []TokenPatch{
		{ExpiresAt: &past},
		{ExpiresAt: &later, ClearExpiresAt: true},
		{Scope: &bad},
		{Referrers: &[]string{"*"}},
	} {
		if _, err := s.UpdateToken(ctx, tok, p); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("UpdateToken(%+v) = %v, want 400", p, err)
		}
	}
}

func TestUserTokens(t *testing.T) {
	s, clock := newTestService(t, Config{})
	ctx := context.Background()
	u := createUser(t, s, "gil@example.com", "gil-password", false)
	other := createUser(t, s, "hal@example.com", "hal-password", false)
	var ids []int
	for _, name := range []string{"first", "second", "third"} {
		tok, _, err := s.CreateToken(ctx, u, TokenSpec{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tok.ID)
		clock.advance(time.Second)
	}
	theirs, _, _ := s.CreateToken(ctx, other, TokenSpec{Name: "theirs"})

	toks, err := s.UserTokens(ctx, u)
	if err != nil || len(toks) != 3 || toks[0].Name != "third" || toks[2].Name != "first" {
		t.Fatalf("UserTokens = %v, %v; want newest first", toks, err)
	}
	if tok, err := s.UserToken(ctx, u, ids[1]); err != nil || tok.Name != "second" {
		t.Errorf("UserToken(own) = %v, %v", tok, err)
	}
	if _, err := s.UserToken(ctx, u, theirs.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("UserToken(other's) = %v; want NOT_FOUND", err)
	}
	if err := s.DeleteToken(ctx, toks[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UserToken(ctx, u, toks[0].ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("deleted token still found: %v", err)
	}
}
