package blob_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/geopub/geopub/internal/blob"
)

func TestOpenLocalDefault(t *testing.T) {
	dataDir := t.TempDir()
	s, err := blob.Open(t.Context(), "", dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(filepath.Join(dataDir, "blobs"))
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&^0o750 != 0 {
		t.Fatalf("blobs folder: %v, %v", fi, err)
	}
	put(t, s, "a/b.txt", "hi", "text/plain")
	p, ok := s.LocalPath("a/b.txt")
	if want := filepath.Join(dataDir, "blobs", "a", "b.txt"); !ok || p != want {
		t.Errorf("LocalPath = %q, %v; want %q", p, ok, want)
	}
}

func TestOpenFileURL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := blob.Open(t.Context(), "file://"+filepath.ToSlash(dir), "/ignored")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, "x", "1", "text/plain")
	if _, err := os.Stat(filepath.Join(dir, "x")); err != nil {
		t.Error(err)
	}
}

func TestOpenRejects(t *testing.T) {
	for _, u := range []string{
		"file://relative/path",
		"file:///abs?create_dir=1",
		"gs://bucket",
		"s3://",
		"::not a url",
	} {
		if s, err := blob.Open(t.Context(), u, t.TempDir()); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", u)
		}
	}
	if _, err := blob.Open(t.Context(), "", ""); err == nil {
		t.Error(`Open("", "") succeeded`)
	}
}
