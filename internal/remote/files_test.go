package remote_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
)

func TestCleanRel(t *testing.T) {
	for in, want := range map[string]string{"a.csv": "a.csv", "d/e/f.shp": "d/e/f.shp"} {
		if got, ok := remote.CleanRel(in); !ok || got != want {
			t.Errorf("%q: %q %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "/etc/passwd", "../x", "a/../../x", "a//b", "a/./b", `a\b`, "a/\x00", "a/"} {
		if _, ok := remote.CleanRel(in); ok {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestCopierLimits(t *testing.T) {
	c := remote.NewCopier(t.TempDir(), &fetch.Client{MaxBytes: 10})
	c.MaxFiles = 2
	if err := c.Copy("a/one.txt", strings.NewReader("12345")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(c.Inbox, "a", "one.txt")); err != nil || string(b) != "12345" {
		t.Fatalf("%q %v", b, err)
	}
	if err := c.Copy("two.txt", strings.NewReader("123456")); !errors.Is(err, fetch.ErrTooLarge) {
		t.Fatalf("over the byte budget: %v", err)
	}
	if err := c.Copy("three.txt", strings.NewReader("")); !remote.IsPermanent(err) {
		t.Fatalf("over the file count: %v", err)
	}
}
