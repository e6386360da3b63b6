package blob_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/blob"
)

func TestRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		before := time.Now().Add(-time.Minute)
		n, err := s.Put(t.Context(), "uploads/1/roads.geojson", strings.NewReader(`{"type":"FeatureCollection"}`), "application/geo+json")
		if err != nil {
			t.Fatal(err)
		}
		if n != 28 {
			t.Errorf("Put size = %d, want 28", n)
		}
		body, attrs := read(t, s, "uploads/1/roads.geojson")
		if body != `{"type":"FeatureCollection"}` {
			t.Errorf("body = %q", body)
		}
		want := blob.Attributes{Size: 28, ContentType: "application/geo+json"}
		if attrs.Size != want.Size || attrs.ContentType != want.ContentType || attrs.ModTime.Before(before) {
			t.Errorf("Open attrs = %+v, want %+v and a recent ModTime", attrs, want)
		}
		st, err := s.Stat(t.Context(), "uploads/1/roads.geojson")
		if err != nil {
			t.Fatal(err)
		}
		if st.Size != want.Size || st.ContentType != want.ContentType || st.ModTime.Before(before) {
			t.Errorf("Stat = %+v, want %+v and a recent ModTime", st, want)
		}
		if ok, err := s.Exists(t.Context(), "uploads/1/roads.geojson"); !ok || err != nil {
			t.Errorf("Exists = %v, %v; want true, nil", ok, err)
		}
		// An empty object is an object too.
		if n, err := s.Put(t.Context(), "empty", strings.NewReader(""), "text/plain"); n != 0 || err != nil {
			t.Fatalf("Put(empty) = %d, %v", n, err)
		}
		if body, attrs := read(t, s, "empty"); body != "" || attrs.Size != 0 {
			t.Errorf("empty object = %q, %+v", body, attrs)
		}
	})
}

func TestLargeStream(t *testing.T) {
	const size = 20 << 20
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		n, err := s.Put(t.Context(), "exports/big.bin", newPattern(size), "application/octet-stream")
		if err != nil {
			t.Fatal(err)
		}
		if n != size {
			t.Fatalf("Put size = %d, want %d", n, size)
		}
		r, attrs, err := s.Open(t.Context(), "exports/big.bin")
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		got, err := io.Copy(h, r)
		r.Close()
		if err != nil || got != size || attrs.Size != size {
			t.Fatalf("read back %d bytes (attrs %d), err %v; want %d", got, attrs.Size, err, size)
		}
		if [32]byte(h.Sum(nil)) != patternSum(size) {
			t.Fatal("content differs")
		}
		runtime.ReadMemStats(&m1)
		// The S3 fake keeps the object in this process's memory, so only
		// the local backend can show that nothing was buffered whole.
		if alloc := m1.TotalAlloc - m0.TotalAlloc; be.local && alloc > size/4 {
			t.Errorf("local round trip of %d bytes allocated %d bytes", size, alloc)
		}
	})
}

func TestOverwrite(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		put(t, s, "a/key", "first version, longer", "text/plain")
		put(t, s, "a/key", "second", "text/csv")
		body, attrs := read(t, s, "a/key")
		if body != "second" || attrs.Size != 6 || attrs.ContentType != "text/csv" {
			t.Errorf("after overwrite: %q %+v", body, attrs)
		}
		if got := keys(t, s, ""); !slices.Equal(got, []string{"a/key"}) {
			t.Errorf("List = %q", got)
		}
	})
}

func TestListByPrefix(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		for _, k := range []string{"b/5", "a/2", "a/1", "a/b/3", "ab/4", "a.txt"} {
			put(t, s, k, k+"!", "text/plain")
		}
		for _, tc := range []struct {
			prefix string
			want   []string
		}{
			{"", []string{"a.txt", "a/1", "a/2", "a/b/3", "ab/4", "b/5"}},
			{"a/", []string{"a/1", "a/2", "a/b/3"}},
			{"a", []string{"a.txt", "a/1", "a/2", "a/b/3", "ab/4"}},
			{"a/b/", []string{"a/b/3"}},
			{"a/b", []string{"a/b/3"}},
			{"zz/", nil},
		} {
			if got := keys(t, s, tc.prefix); !slices.Equal(got, tc.want) {
				t.Errorf("List(%q) = %q, want %q", tc.prefix, got, tc.want)
			}
		}
		for o, err := range s.List(t.Context(), "a/b/") {
			if err != nil || o.Size != int64(len("a/b/3!")) || o.ModTime.IsZero() {
				t.Errorf("List entry = %+v, %v", o, err)
			}
		}
		// Stopping early is fine.
		for range s.List(t.Context(), "") {
			break
		}
		for _, bad := range []string{"../", "/a", "a//", `a\`} {
			var n int
			for _, err := range s.List(t.Context(), bad) {
				n++
				if !errors.Is(err, blob.ErrInvalidKey) {
					t.Errorf("List(%q) error = %v, want ErrInvalidKey", bad, err)
				}
			}
			if n != 1 {
				t.Errorf("List(%q) yielded %d pairs, want 1 error", bad, n)
			}
		}
	})
}

func TestDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		put(t, s, "d/one", "1", "text/plain")
		put(t, s, "d/two", "2", "text/plain")
		if err := s.Delete(t.Context(), "d/one"); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.Exists(t.Context(), "d/one"); ok || err != nil {
			t.Errorf("Exists after Delete = %v, %v", ok, err)
		}
		if got := keys(t, s, "d/"); !slices.Equal(got, []string{"d/two"}) {
			t.Errorf("List after Delete = %q", got)
		}
		if err := s.Delete(t.Context(), "d/one"); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("second Delete = %v, want ErrNotFound", err)
		}
	})
}

func TestNotFound(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		ctx := t.Context()
		const key = "missing/thing.zip"
		if _, _, err := s.Open(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Open = %v", err)
		}
		if _, err := s.Stat(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Stat = %v", err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Delete = %v", err)
		}
		if ok, err := s.Exists(ctx, key); ok || err != nil {
			t.Errorf("Exists = %v, %v; want false, nil", ok, err)
		}
		dst := filepath.Join(t.TempDir(), "out")
		if _, err := s.Download(ctx, key, dst); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Download = %v", err)
		}
		if _, err := os.Stat(dst); !os.IsNotExist(err) {
			t.Errorf("Download of a missing key left %s: %v", dst, err)
		}
		// A "directory" of the local folder is not an object.
		put(t, s, "dir/child", "x", "text/plain")
		if _, err := s.Stat(ctx, "dir"); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Stat(dir) = %v", err)
		}
	})
}

var invalidKeys = []string{
	"", "/abs", "trailing/", "a//b", "..", "a/../b", "a/./b", ".", "./a",
	`a\b`, "nul\x00", "ctl\x01", "tab\tkey", "bad\xffutf8",
	strings.Repeat("k/", 512) + "k", strings.Repeat("s", 201),
	"meta.attrs", "part.1a2b3c.tmp",
}

func TestInvalidKeys(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		ctx := t.Context()
		for _, key := range invalidKeys {
			check := func(op string, err error) {
				if !errors.Is(err, blob.ErrInvalidKey) {
					t.Errorf("%s(%q) = %v, want ErrInvalidKey", op, key, err)
				}
			}
			_, err := s.Put(ctx, key, strings.NewReader("x"), "text/plain")
			check("Put", err)
			_, _, err = s.Open(ctx, key)
			check("Open", err)
			_, err = s.Stat(ctx, key)
			check("Stat", err)
			_, err = s.Exists(ctx, key)
			check("Exists", err)
			check("Delete", s.Delete(ctx, key))
			_, err = s.Download(ctx, key, filepath.Join(t.TempDir(), "x"))
			check("Download", err)
			if p, ok := s.LocalPath(key); ok {
				t.Errorf("LocalPath(%q) = %q, true", key, p)
			}
		}
		if got := keys(t, s, ""); len(got) != 0 {
			t.Errorf("invalid keys stored something: %q", got)
		}
		// The edges of what is valid.
		for _, key := range []string{strings.Repeat("k/", 511) + "kk", strings.Repeat("s", 200), "a/b c/ü.tif", ".hidden", "a..b", "x.attrs/y", "v1.tmp"} {
			put(t, s, key, "ok", "text/plain")
		}
	})
}

// Sizes on both sides of the S3 multipart threshold (5 MiB parts).
var failSizes = []int64{0, 100 << 10, 12 << 20}

func TestFailedPutLeavesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		put(t, s, "keep/old", "old content", "text/plain")
		for _, n := range failSizes {
			for _, key := range []string{"fail/new", "keep/old"} {
				_, err := s.Put(t.Context(), key, failAfter(n), "application/zip")
				if !errors.Is(err, errBoom) {
					t.Errorf("Put(%q) failing after %d bytes = %v, want the reader's error", key, n, err)
				}
			}
		}
		assertUntouched(t, be, s)
	})
}

func TestCancelledPutLeavesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		put(t, s, "keep/old", "old content", "text/plain")
		for _, n := range failSizes {
			for _, key := range []string{"fail/new", "keep/old"} {
				ctx, cancel := context.WithCancel(t.Context())
				_, err := s.Put(ctx, key, cancelAfter(n, cancel), "application/zip")
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Put(%q) cancelled after %d bytes = %v, want context.Canceled", key, n, err)
				}
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := s.Put(ctx, "fail/new", strings.NewReader("x"), "text/plain"); !errors.Is(err, context.Canceled) {
			t.Errorf("Put with a done context = %v", err)
		}
		assertUntouched(t, be, s)
	})
}

// assertUntouched checks that only keep/old, unchanged, is visible, and that
// the local folder holds no stray temporary file.
func assertUntouched(t *testing.T, be backend, s *blob.Store) {
	t.Helper()
	if got := keys(t, s, ""); !slices.Equal(got, []string{"keep/old"}) {
		t.Errorf("List = %q, want only keep/old", got)
	}
	if body, attrs := read(t, s, "keep/old"); body != "old content" || attrs.ContentType != "text/plain" {
		t.Errorf("keep/old = %q %+v", body, attrs)
	}
	if !be.local {
		return
	}
	p, _ := s.LocalPath("keep/old")
	root := filepath.Dir(filepath.Dir(p))
	var files []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if want := []string{"keep/old", "keep/old.attrs"}; !slices.Equal(files, want) {
		t.Errorf("local folder holds %q, want %q", files, want)
	}
}

func TestLocalPathAndDownload(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend, s *blob.Store) {
		put(t, s, "src/data.csv", "id,name\n1,a\n", "text/csv")
		p, ok := s.LocalPath("src/data.csv")
		if ok != be.local {
			t.Fatalf("LocalPath ok = %v on %s", ok, be.name)
		}
		if ok {
			b, err := os.ReadFile(p)
			if err != nil || string(b) != "id,name\n1,a\n" {
				t.Errorf("reading LocalPath %s: %q, %v", p, b, err)
			}
		}
		dst := filepath.Join(t.TempDir(), "copy.csv")
		if err := os.WriteFile(dst, []byte("stale"), 0o600); err != nil {
			t.Fatal(err)
		}
		n, err := s.Download(t.Context(), "src/data.csv", dst)
		if err != nil || n != 12 {
			t.Fatalf("Download = %d, %v", n, err)
		}
		if b, _ := os.ReadFile(dst); string(b) != "id,name\n1,a\n" {
			t.Errorf("downloaded %q", b)
		}
		if ents, _ := os.ReadDir(filepath.Dir(dst)); len(ents) != 1 {
			t.Errorf("Download left %d files beside the target", len(ents))
		}
	})
}
