package pagefile

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/fetch"
)

// A server that stops sending is abandoned after StallTimeout, with a
// message saying so.
func TestGetStall(t *testing.T) {
	old := StallTimeout
	StallTimeout = 200 * time.Millisecond
	defer func() { StallTimeout = old }()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	fc := &fetch.Client{Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
	u, _ := url.Parse(srv.URL)
	start := time.Now()
	_, err := Get(context.Background(), fc.HTTPClient(fetch.Options{}, u), u, MaxDocument, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "sent nothing") || time.Since(start) > 5*time.Second {
		t.Fatalf("stalled answer: %v after %s", err, time.Since(start))
	}
}
