package auth

import (
	"strings"
	"testing"
)

func TestNewKey(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		k, err := NewKey()
		if err != nil {
			t.Fatal(err)
		}
		if len(k) != 32 {
			t.Fatalf("key %q has length %d, want 32", k, len(k))
		}
		if strings.Trim(k, keyAlphabet) != "" || !wellFormedKey(k) {
			t.Fatalf("key %q has characters outside [A-Za-z0-9]", k)
		}
		if seen[k] {
			t.Fatalf("key %q repeated", k)
		}
		seen[k] = true
	}
}

func TestHashKeyAndHint(t *testing.T) {
	tests := []struct {
		key, hint string
	}{
		{"0fooxxAbCdEfGhIjKlMnOpQrStUvWxYz", "0foox..."},
		{"abc", "abc..."},
	}
	for _, tt := range tests {
		if got := KeyHint(tt.key); got != tt.hint {
			t.Errorf("KeyHint(%q) = %q, want %q", tt.key, got, tt.hint)
		}
		h := HashKey(tt.key)
		if len(h) != 64 || h != HashKey(tt.key) || h == HashKey(tt.key+"x") {
			t.Errorf("HashKey(%q) = %q: want a stable 64-hex-digit digest", tt.key, h)
		}
	}
}

func TestWellFormedKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{strings.Repeat("a", 32), true},
		{strings.Repeat("a", 31), false},
		{strings.Repeat("a", 33), false},
		{strings.Repeat("a", 31) + "-", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := wellFormedKey(tt.key); got != tt.want {
			t.Errorf("wellFormedKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}
