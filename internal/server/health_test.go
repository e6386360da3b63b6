package server_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/web/frontpage"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

func TestHealthAndReadiness(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		for path, want := range map[string]int{"/healthz": http.StatusOK, "/readyz": http.StatusOK} {
			resp, err := http.Get(e.HTTP.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want || string(body) != "ok\n" {
				t.Fatalf("%s = %d %q", path, resp.StatusCode, body)
			}
		}
		// With the database gone, readiness fails and health does not.
		st.Close()
		resp, err := http.Get(e.HTTP.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("/readyz with the database closed = %d", resp.StatusCode)
		}
	})
}

// An object store that cannot be reached fails readiness (it used to pass,
// and the first upload was a 500).
func TestReadinessChecksBlobStorage(t *testing.T) {
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().String()
	ln.Close() // nothing listens there now
	st := storetest.Open(t, dialect.SQLite, storetest.Options{})
	ctx := context.Background()
	if _, err := jobs.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	srv, err := server.NewWithStore(ctx, server.Config{
		DataDir: t.TempDir(),
		BlobURL: "s3://geopub-test?endpoint=http://" + closedPort + "&region=us-east-1&use_path_style=true",
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jobs:    jobs.Config{InsertOnly: true},
	}, st)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Resolver.Blobs.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || string(body) != "blob storage unreachable\n" {
		t.Fatalf("/readyz with the object store down = %d %q", resp.StatusCode, body)
	}
}

// The front page answers at / and none of its links is dead.
func TestFrontPageLinksAnswer(t *testing.T) {
	e := servertest.New(t, storetest.Open(t, dialect.SQLite, storetest.Options{}))
	resp, err := http.Get(e.HTTP.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d", resp.StatusCode)
	}
	for _, l := range frontpage.Links {
		resp, err := http.Get(e.HTTP.URL + l.Href)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode >= 500 {
			t.Errorf("the front page's link %s answers %d", l.Href, resp.StatusCode)
		}
	}
}
