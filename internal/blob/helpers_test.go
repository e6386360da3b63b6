package blob_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/geopub/geopub/internal/blob"
)

// backend opens a fresh, empty store.
type backend struct {
	name  string
	local bool
	open  func(t *testing.T) *blob.Store
}

var backends = []backend{
	{name: "local", local: true, open: openLocal},
	{name: "s3", open: openFakeS3},
}

// forEachBackend runs fn once per backend, each with its own empty store.
func forEachBackend(t *testing.T, fn func(t *testing.T, be backend, s *blob.Store)) {
	t.Helper()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)
			fn(t, be, s)
		})
	}
}

func openLocal(t *testing.T) *blob.Store {
	t.Helper()
	s, err := blob.Open(t.Context(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// openFakeS3 starts an in-memory S3 fake on loopback and points a store at it
// the way production does: by URL, path-style, credentials from the standard
// AWS environment variables.
func openFakeS3(t *testing.T) *blob.Store {
	t.Helper()
	url := fakeS3(t) + "&request_checksum_calculation=when_required&response_checksum_validation=when_required"
	s, err := blob.Open(t.Context(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// fakeS3 starts an in-memory S3 fake with a bucket geopub-test on loopback
// and returns its URL with the parameters every S3-compatible store needs
// (endpoint, region, path-style); credentials come from the standard AWS
// environment variables. wrap, when given, sees every request first.
func fakeS3(t *testing.T, wrap ...func(http.Handler) http.Handler) string {
	t.Helper()
	mem := s3mem.New()
	if err := mem.CreateBucket("geopub-test"); err != nil {
		t.Fatal(err)
	}
	h := gofakes3.New(mem).Server()
	for _, w := range wrap {
		h = w(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	t.Setenv("AWS_ACCESS_KEY_ID", "test-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")

	return "s3://geopub-test?endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true"
}

// pattern yields size deterministic bytes without holding them.
type pattern struct{ pos, size int64 }

func newPattern(size int64) *pattern { return &pattern{size: size} }

func (p *pattern) Read(b []byte) (int, error) {
	if p.pos >= p.size {
		return 0, io.EOF
	}
	if rest := p.size - p.pos; int64(len(b)) > rest {
		b = b[:rest]
	}
	for i := range b {
		x := p.pos + int64(i)
		b[i] = byte(x*7 + x>>11)
	}
	p.pos += int64(len(b))
	return len(b), nil
}

func patternSum(size int64) [32]byte {
	h := sha256.New()
	if _, err := io.Copy(h, newPattern(size)); err != nil {
		panic(err)
	}
	return [32]byte(h.Sum(nil))
}

var errBoom = errors.New("reader broke")

// failAfter yields n pattern bytes, then fails with errBoom.
func failAfter(n int64) io.Reader {
	return io.MultiReader(newPattern(n), readerFunc(func([]byte) (int, error) { return 0, errBoom }))
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }

// cancelAfter yields pattern bytes without end and cancels ctx after n.
func cancelAfter(n int64, cancel context.CancelFunc) io.Reader {
	p := newPattern(1 << 62)
	return readerFunc(func(b []byte) (int, error) {
		if p.pos >= n {
			cancel()
		}
		return p.Read(b)
	})
}

func put(t *testing.T, s *blob.Store, key, body, ctype string) {
	t.Helper()
	if _, err := s.Put(t.Context(), key, strings.NewReader(body), ctype); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func read(t *testing.T, s *blob.Store, key string) (string, blob.Attributes) {
	t.Helper()
	r, attrs, err := s.Open(t.Context(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	return string(b), attrs
}

func keys(t *testing.T, s *blob.Store, prefix string) []string {
	t.Helper()
	var out []string
	for o, err := range s.List(t.Context(), prefix) {
		if err != nil {
			t.Fatalf("List(%q): %v", prefix, err)
		}
		out = append(out, o.Key)
	}
	slices.Sort(out) // List promises no order across backends
	return out
}
