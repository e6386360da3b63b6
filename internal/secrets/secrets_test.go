package secrets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key, created, err := LoadOrCreate(t.TempDir())
	if err != nil || !created {
		t.Fatal(created, err)
	}
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Seal("hunter2")
	if err != nil || !Sealed(s) || strings.Contains(s, "hunter2") {
		t.Fatalf("sealed %q %v", s, err)
	}
	if p, err := b.Open(s); err != nil || p != "hunter2" {
		t.Fatalf("open %q %v", p, err)
	}
	if p, err := b.Open("plain old"); err != nil || p != "plain old" {
		t.Fatalf("plain %q %v", p, err)
	}
	if s, _ := b.Seal(""); s != "" {
		t.Fatalf("empty sealed to %q", s)
	}
	other, _ := New(make([]byte, KeySize))
	if _, err := other.Open(s); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := b.Open(prefix + "!!"); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("garbage: %v", err)
	}
}

func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	k1, created, err := LoadOrCreate(dir)
	if err != nil || !created {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v", fi, err)
	}
	k2, created, err := LoadOrCreate(dir)
	if err != nil || created || string(k1) != string(k2) {
		t.Fatalf("reload: %v %v", created, err)
	}
	if _, err := ParseKey("c2hvcnQ="); err == nil {
		t.Fatal("short key accepted")
	}
}
