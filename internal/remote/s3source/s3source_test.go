package s3source_test

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/s3source"
	"github.com/geopub/geopub/internal/remote/s3source/s3test"
)

func loopback() *fetch.Client {
	return &fetch.Client{Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
}

func conn(srv *s3test.Server, url string) remote.Conn {
	return remote.Conn{URL: url, Endpoint: srv.Endpoint, Username: s3test.AccessKey, Password: s3test.SecretKey,
		SSLVerify: true, Fetch: loopback()}
}

func TestGatherCopiesObjectsUnderThePrefix(t *testing.T) {
	srv := s3test.Start(t)
	srv.CreateBucket(t, "geodata")
	srv.Put(t, "geodata", "wellington/roads.geojson", []byte(`{"type":"FeatureCollection","features":[]}`))
	srv.Put(t, "geodata", "wellington/parcels/parcels.zip", []byte("zip"))
	srv.Put(t, "geodata", "elsewhere/other.csv", []byte("a\n1\n"))
	inbox := t.TempDir()
	var notes []string
	files, err := s3source.Kind{}.Gather(context.Background(), conn(srv, "s3://geodata/wellington"), inbox, func(s string) { notes = append(notes, s) })
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	if !slices.Equal(files, []string{"parcels/parcels.zip", "roads.geojson"}) {
		t.Fatalf("files %v", files)
	}
	if b, err := os.ReadFile(filepath.Join(inbox, "parcels", "parcels.zip")); err != nil || string(b) != "zip" {
		t.Fatalf("copied %q %v", b, err)
	}

	// The whole bucket.
	files, err = s3source.Kind{}.Gather(context.Background(), conn(srv, "s3://geodata"), t.TempDir(), func(string) {})
	if err != nil || len(files) != 3 {
		t.Fatalf("whole bucket: %v %v", files, err)
	}
}

func TestGatherExplainsFailures(t *testing.T) {
	srv := s3test.Start(t)
	srv.CreateBucket(t, "geodata")
	ctx := context.Background()
	note := func(string) {}

	c := conn(srv, "s3://geodata/")
	c.Password = "wrong-secret-value"
	_, err := s3source.Kind{}.Gather(ctx, c, t.TempDir(), note)
	if !remote.IsPermanent(err) || !strings.Contains(err.Error(), "refused the credentials") || strings.Contains(err.Error(), c.Password) {
		t.Fatalf("wrong secret: %v", err)
	}
	c = conn(srv, "s3://geodata/")
	c.Username = "NOSUCHKEY"
	_, err = s3source.Kind{}.Gather(ctx, c, t.TempDir(), note)
	if !remote.IsPermanent(err) {
		t.Fatalf("unknown key: %v", err)
	}

	_, err = s3source.Kind{}.Gather(ctx, conn(srv, "s3://missing-bucket/"), t.TempDir(), note)
	if !remote.IsPermanent(err) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing bucket: %v", err)
	}
	_, err = s3source.Kind{}.Gather(ctx, conn(srv, "s3://geodata/"), t.TempDir(), note)
	if !remote.IsPermanent(err) || !strings.Contains(err.Error(), "no objects") {
		t.Fatalf("empty bucket: %v", err)
	}

	c = conn(srv, "s3://geodata/")
	c.Endpoint = "http://127.0.0.1:1"
	_, err = s3source.Kind{}.Gather(ctx, c, t.TempDir(), note)
	if err == nil || !strings.Contains(err.Error(), "Could not reach the object store") {
		t.Fatalf("unreachable: %v", err)
	}

	c = conn(srv, "s3://geodata/")
	c.Fetch = &fetch.Client{Guard: &fetch.Guard{}}
	_, err = s3source.Kind{}.Gather(ctx, c, t.TempDir(), note)
	if !errors.Is(err, fetch.ErrForbiddenAddress) {
		t.Fatalf("guard: %v", err)
	}
}

func TestParseURL(t *testing.T) {
	for raw, want := range map[string]s3source.Location{
		"s3://bucket":           {Bucket: "bucket"},
		"s3://my.bucket/a/b":    {Bucket: "my.bucket", Prefix: "a/b/"},
		"s3://bucket-1/prefix/": {Bucket: "bucket-1", Prefix: "prefix/"},
		"S3://bucket/x":         {Bucket: "bucket", Prefix: "x/"},
	} {
		if got, problem := s3source.ParseURL(raw); problem != "" || got != want {
			t.Errorf("%s: %+v %q", raw, got, problem)
		}
	}
	for _, raw := range []string{"s3://", "s3://B", "s3://ab", "s3://a_b/x", "http://bucket/x", "s3://k:s@bucket/", "s3://bucket/x?y=1", "s3://bucket..x/"} {
		if _, problem := s3source.ParseURL(raw); problem == "" {
			t.Errorf("%s accepted", raw)
		}
	}
}

// A source without keys is read anonymously: keys in the environment (or
// the shared AWS files they could point at) are never used.
func TestGatherIgnoresAmbientCredentials(t *testing.T) {
	srv := s3test.Start(t)
	srv.CreateBucket(t, "geodata")
	srv.Put(t, "geodata", "a.csv", []byte("a\n1\n"))
	t.Setenv("AWS_ACCESS_KEY_ID", s3test.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3test.SecretKey)
	t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)
	c := conn(srv, "s3://geodata/")
	c.Username, c.Password = "", ""
	_, err := s3source.Kind{}.Gather(context.Background(), c, t.TempDir(), func(string) {})
	if !remote.IsPermanent(err) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("anonymous read of a private bucket: %v", err)
	}
}

// ssl_verify: a self-signed server is refused unless the source turns
// verification off.
func TestGatherHonoursSSLVerify(t *testing.T) {
	srv := s3test.StartTLS(t)
	srv.CreateBucket(t, "geodata")
	srv.Put(t, "geodata", "a.csv", []byte("a\n1\n"))
	c := conn(srv, "s3://geodata/")
	_, err := s3source.Kind{}.Gather(context.Background(), c, t.TempDir(), func(string) {})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("verified: %v", err)
	}
	c.SSLVerify = false
	files, err := s3source.Kind{}.Gather(context.Background(), c, t.TempDir(), func(string) {})
	if err != nil || len(files) != 1 {
		t.Fatalf("unverified: %v %v", files, err)
	}
}
