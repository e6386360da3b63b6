package onewrite

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
)

// countingListener counts the writes its connections make to the
// network.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// body is n bytes that compress badly.
func body(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*131 + i>>8)
	}
	return b
}

// serve starts h behind Serve on loopback, counting writes.
func serve(t *testing.T, h http.Handler) (url string, writes *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	writes = new(atomic.Int64)
	hs := &http.Server{Handler: h}
	go func() { _ = Serve(hs, countingListener{ln, writes}) }()
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String(), writes
}

// get asks for path with method on client's kept-alive connection and
// returns the answer's status, header and body.
func get(t *testing.T, client *http.Client, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// An answer written with Send reaches the network in one write whatever
// its size up to maxHold (net/http alone writes those over 4 KiB in two),
// on one kept-alive connection, for GET and HEAD, with its
// Content-Length; larger answers arrive whole.
func TestSendWritesOnce(t *testing.T) {
	url, writes := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "application/octet-stream")
		Send(w, r, http.StatusOK, body(n))
	}))
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, DisableCompression: true}}
	for _, n := range []int{0, 10, 3000, 4000, 5000, 8192, 17770, 70000, 600000} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			before := writes.Load()
			resp, got := get(t, client, method, fmt.Sprintf("%s/?n=%d", url, n))
			want := body(n)
			if method == http.MethodHead {
				want = nil
			}
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) || resp.ContentLength != int64(n) {
				t.Fatalf("%s %d bytes: %s, %d bytes back, Content-Length %d", method, n, resp.Status, len(got), resp.ContentLength)
			}
			if w := writes.Load() - before; w != 1 {
				t.Errorf("%s %d bytes: %d writes, want 1", method, n, w)
			}
		}
	}
	before := writes.Load()
	if resp, got := get(t, client, http.MethodGet, url+"/?n=3000000"); resp.StatusCode != http.StatusOK || !bytes.Equal(got, body(3000000)) {
		t.Fatalf("3,000,000 bytes: %s, %d bytes back", resp.Status, len(got))
	}
	t.Logf("3,000,000 bytes (over the %d held): %d writes", maxHold, writes.Load()-before)
}

// After Send, the connection no longer holds: a streamed answer on the
// same kept-alive connection reaches the client part by part, before
// its handler ends.
func TestStreamAfterSendIsNotHeld(t *testing.T) {
	release := make(chan struct{})
	url, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/send" {
			Send(w, r, http.StatusOK, body(20000))
			return
		}
		_, _ = w.Write([]byte("first part\n"))
		_ = http.NewResponseController(w).Flush()
		<-release
		_, _ = w.Write([]byte("second part\n"))
	}))
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	get(t, client, http.MethodGet, url+"/send")
	resp, err := client.Get(url + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, len("first part\n"))
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != "first part\n" {
		t.Fatalf("first part: %q, %v", first, err)
	}
	close(release)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "second part\n" {
		t.Fatalf("second part: %q, %v", rest, err)
	}
}

// Without Serve's connections (a plain test server), Send writes as any
// handler does; its status and body arrive.
func TestSendWithoutServe(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Send(w, r, http.StatusNotFound, body(9000))
	}))
	defer hs.Close()
	resp, got := get(t, hs.Client(), http.MethodGet, hs.URL)
	if resp.StatusCode != http.StatusNotFound || !bytes.Equal(got, body(9000)) || resp.ContentLength != 9000 {
		t.Fatalf("%s, %d bytes, Content-Length %d", resp.Status, len(got), resp.ContentLength)
	}
}
