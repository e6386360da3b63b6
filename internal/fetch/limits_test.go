package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/fetch"
)

func loopbackClient(t *testing.T) *fetch.Client {
	t.Helper()
	allow, err := fetch.ParseAllowList("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return &fetch.Client{Guard: &fetch.Guard{Allow: allow}}
}

// trickle serves one byte per interval until the request ends.
func trickle(interval time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(interval):
			}
		}
	}
}

// A server that stops sending fails the download with ErrStalled after
// StallTimeout, not after the total budget.
func TestDownloadStalls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("abc"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := loopbackClient(t)
	c.StallTimeout = 500 * time.Millisecond
	u, _ := url.Parse(srv.URL + "/slow.zip")
	start := time.Now()
	_, err := c.Download(context.Background(), u, fetch.Options{}, &bytes.Buffer{})
	if !errors.Is(err, fetch.ErrStalled) {
		t.Fatalf("err = %v, want ErrStalled", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("stalled download took %s", took)
	}
}

// Issue 24, 0d: a server trickling a byte at a time held a remote worker
// for the whole budget. Progress is MinProgress bytes per StallTimeout.
func TestDownloadTrickleStalls(t *testing.T) {
	srv := httptest.NewServer(trickle(20 * time.Millisecond))
	defer srv.Close()
	c := loopbackClient(t)
	c.StallTimeout, c.MinProgress, c.Timeout = 500*time.Millisecond, 1024, 30*time.Second
	u, _ := url.Parse(srv.URL + "/slow.zip")
	start := time.Now()
	_, err := c.Download(context.Background(), u, fetch.Options{}, &bytes.Buffer{})
	if !errors.Is(err, fetch.ErrStalled) {
		t.Fatalf("err = %v, want ErrStalled", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the trickle held the download %s", took)
	}
}

// A server that trickles a byte at a time keeps the stall timer at bay
// (MinProgress 1 byte) but not the total budget.
func TestDownloadBudget(t *testing.T) {
	srv := httptest.NewServer(trickle(100 * time.Millisecond))
	defer srv.Close()
	c := loopbackClient(t)
	c.StallTimeout, c.MinProgress = 2*time.Second, 1
	c.Timeout = time.Second
	u, _ := url.Parse(srv.URL + "/slow.zip")
	_, err := c.Download(context.Background(), u, fetch.Options{}, &bytes.Buffer{})
	if !errors.Is(err, fetch.ErrTooSlow) {
		t.Fatalf("err = %v, want ErrTooSlow", err)
	}
}

// Credentials go to the origin they were given for, redirects within it
// included, and never to another port or host.
func TestDownloadCredentialsStayWithOrigin(t *testing.T) {
	seen := make(chan string, 4)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
		w.Write([]byte("data"))
	}))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/file.zip", http.StatusFound)
	})
	mux.HandleFunc("/here", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/file.zip", http.StatusFound)
	})
	mux.HandleFunc("/file.zip", func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "reader" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("data"))
	})
	origin := httptest.NewServer(mux)
	defer origin.Close()
	c := loopbackClient(t)
	opts := fetch.Options{Username: "reader", Password: "s3cret"}

	u, _ := url.Parse(origin.URL + "/away")
	if _, err := c.Download(context.Background(), u, opts, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; got != "" {
		t.Fatalf("the other port received Authorization %q", got)
	}
	u, _ = url.Parse(origin.URL + "/here")
	if _, err := c.Download(context.Background(), u, opts, &bytes.Buffer{}); err != nil {
		t.Fatalf("same-origin redirect lost the credentials: %v", err)
	}
}
