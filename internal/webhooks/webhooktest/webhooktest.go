// Package webhooktest holds what tests of webhooks share: a receiving
// endpoint on loopback, and verification of what it received with the
// Standard Webhooks reference implementation (the standardwebhooks npm
// package, installed by scripts/ensure-npm.sh webhook-verifier).
package webhooktest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/geopub/geopub/internal/moduleroot"
)

// Message is one request a Receiver got.
type Message struct {
	Header http.Header
	Body   []byte
}

// Receiver is a webhook endpoint on 127.0.0.1: it records every request
// and answers the n-th (from 1) with the status Answer returns, which may
// block (until req.Context() ends, say, to hold an attempt open).
type Receiver struct {
	URL    string // the endpoint's URL
	mu     sync.Mutex
	got    []Message
	answer func(n int, req *http.Request) int
	wake   chan struct{}
}

// NewReceiver starts a receiver, closed when the test ends.
func NewReceiver(t testing.TB, answer func(n int, req *http.Request) int) *Receiver {
	r := &Receiver{answer: answer, wake: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, Message{Header: req.Header.Clone(), Body: b})
		n := len(r.got)
		close(r.wake)
		r.wake = make(chan struct{})
		r.mu.Unlock()
		w.WriteHeader(r.answer(n, req))
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hooks"
	return r
}

// Messages returns what the receiver got so far, in order.
func (r *Receiver) Messages() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.got...)
}

// Arrived returns a channel closed at the next request after this call,
// and how many requests came before it.
func (r *Receiver) Arrived() (<-chan struct{}, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wake, len(r.got)
}

// Verify checks messages signed with secret by the standardwebhooks npm
// package, the specification's reference implementation, and returns its
// verdict on each: "ok <type>" or "bad <why>". Without node it fails the
// test when GEOPUB_REQUIRE_TOOLS is set and skips it otherwise.
func Verify(t testing.TB, secret string, ms []Message) []string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal("node is missing; the webhook tests verify with the standardwebhooks npm package")
		}
		t.Skip("node is missing")
	}
	root := moduleRoot(t)
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "ensure-npm.sh"), "webhook-verifier").Output()
	if err != nil {
		t.Fatalf("scripts/ensure-npm.sh webhook-verifier: %v", err)
	}
	var in strings.Builder
	for _, m := range ms {
		h := map[string]string{}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			h[k] = m.Header.Get(k)
		}
		b, _ := json.Marshal(map[string]any{"secret": secret, "headers": h, "body": string(m.Body)})
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", filepath.Join(root, "scripts", "webhook-verifier", "verify.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(strings.TrimSpace(string(out)), "node_modules"))
	cmd.Stdin = strings.NewReader(in.String())
	res, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("verify.js: %v\n%s", err, res)
	}
	return strings.Split(strings.TrimSpace(string(res)), "\n")
}

// moduleRoot is the folder of go.mod above the test's working directory.
func moduleRoot(t testing.TB) string {
	dir, err := moduleroot.Dir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
