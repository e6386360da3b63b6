package auth

import (
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/apperr"
)

func TestValidateScopes(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // normalised scopes; empty when an error is expected
		badScope string // the unknown name the error must mention
	}{
		{"empty gets defaults", "", DefaultScopes.String(), ""},
		{"blank gets defaults", "   ", DefaultScopes.String(), ""},
		{"explicit", "tokens:read query", "query tokens:read", ""},
		{"commas and duplicates", "query,tiles query", "query tiles", ""},
		{"unknown", "query layers:destroy", "", "layers:destroy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateScopes(tt.in)
			if tt.badScope != "" {
				e := apperr.As(err)
				if e.Code != apperr.Invalid || e.Code.HTTPStatus() != 400 ||
					!strings.Contains(e.Message, tt.badScope) || len(e.Fields["scope"]) == 0 {
					t.Fatalf("ValidateScopes(%q) error = %v; want 400 naming %q", tt.in, err, tt.badScope)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("ValidateScopes(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestDefaultScopesAreKnownAndReadOnly(t *testing.T) {
	all, err := ValidateScopes(strings.Join(KnownScopes, " "))
	if err != nil {
		t.Fatal(err)
	}
	if !all.Covers(DefaultScopes) {
		t.Error("DefaultScopes holds a scope not in KnownScopes")
	}
	for s := range DefaultScopes {
		if strings.HasSuffix(s, ":write") || strings.HasSuffix(s, ":push") {
			t.Errorf("default scope %q writes", s)
		}
	}
}

func TestScopesCovers(t *testing.T) {
	tests := []struct {
		have, want string
		covers     bool
	}{
		{"query tiles", "query", true},
		{"query", "query tiles", false},
		{"query", "", true},
	}
	for _, tt := range tests {
		if got := ParseScopes(tt.have).Covers(ParseScopes(tt.want)); got != tt.covers {
			t.Errorf("%q covers %q = %v, want %v", tt.have, tt.want, got, tt.covers)
		}
	}
}
