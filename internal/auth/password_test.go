package auth

import (
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/apperr"
)

func TestHashPasswordRoundTrip(t *testing.T) {
	enc, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(enc, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("encoding %q is not the expected PHC string", enc)
	}
	tests := []struct {
		name, pw string
		want     bool
	}{
		{"right password", "correct horse battery", true},
		{"wrong password", "correct horse battery!", false},
		{"empty password", "", false},
		{"case differs", "Correct horse battery", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := VerifyPassword(enc, tt.pw)
			if err != nil || got != tt.want {
				t.Errorf("VerifyPassword = %v, %v; want %v, nil", got, err, tt.want)
			}
		})
	}
}

func TestHashPasswordSalted(t *testing.T) {
	a, _ := HashPassword("same password")
	b, _ := HashPassword("same password")
	if a == b {
		t.Error("two hashes of one password are equal; salt missing")
	}
}

func TestHashPasswordTooShort(t *testing.T) {
	for _, pw := range []string{"", "1234567", "ÄÖÜäöüß"} {
		_, err := HashPassword(pw)
		e := apperr.As(err)
		if e.Code != apperr.Invalid || len(e.Fields["password"]) != 1 {
			t.Errorf("HashPassword(%q) = %v; want a password field error", pw, err)
		}
	}
	if _, err := HashPassword("ÄÖÜäöüßé"); err != nil { // 8 characters, 16 bytes
		t.Errorf("8-character password refused: %v", err)
	}
}

func TestVerifyPasswordMalformed(t *testing.T) {
	good, _ := HashPassword("password1")
	parts := strings.Split(good, "$")
	tests := []string{
		"",
		"plain",
		"$argon2i$v=19$m=19456,t=2,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=18$m=19456,t=2,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=99999999,t=2,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=19456,t=0,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=19456,t=2,p=1$!!$" + parts[5],
		"$argon2id$v=19$m=19456,t=2,p=1$" + parts[4],
	}
	for _, enc := range tests {
		if ok, err := VerifyPassword(enc, "password1"); ok || err == nil {
			t.Errorf("VerifyPassword(%q) = %v, %v; want false and an error", enc, ok, err)
		}
	}
}

func BenchmarkHashPassword(b *testing.B) {
	for b.Loop() {
		if _, err := HashPassword("benchmark password"); err != nil {
			b.Fatal(err)
		}
	}
}
