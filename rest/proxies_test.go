package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 24, point 21: behind a proxy every client had the proxy's address,
// so one client's wrong passwords held the owner back too. With the proxy
// trusted (--trusted-proxies), each client is its own address; links
// follow the scheme and host the client used. An untrusted peer's headers
// change nothing.
func TestTrustedProxies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		proxies, err := forwarded.Parse("127.0.0.0/8, ::1")
		if err != nil {
			t.Fatal(err)
		}
		e := servertest.NewWith(t, st, func(c *server.Config) { c.TrustedProxies = proxies })
		owner := e.NewUser(t, "Owner")
		signIn := func(from, password string) *http.Response {
			body, _ := json.Marshal(map[string]string{"email": owner.Email, "password": password})
			req, _ := http.NewRequest(http.MethodPost, e.API+"/session/", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Forwarded-For", from)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}
		held := false
		for range 30 {
			if signIn("198.51.100.1", "wrong password").StatusCode == http.StatusTooManyRequests {
				held = true
				break
			}
		}
		if !held {
			t.Fatal("30 wrong passwords from one client were never held back")
		}
		if resp := signIn("198.51.100.2", servertest.Password); resp.StatusCode != http.StatusOK {
			t.Fatalf("the owner, from another client behind the same proxy: %d, want 200", resp.StatusCode)
		}

		r := e.Do(t, servertest.Request{Path: "/layers/", Key: owner.Key,
			Header: map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "data.example.com"}})
		if r.Status != http.StatusOK || strings.Contains(string(r.Body), "http://127.0.0.1") {
			t.Fatalf("links behind the proxy: %d %.300s", r.Status, r.Body)
		}
		r = e.Do(t, servertest.Request{Path: "/users/me/", Key: owner.Key,
			Header: map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "data.example.com"}})
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"https://data.example.com/services/api/`) {
			t.Fatalf("links behind the proxy: %d %.300s, want https://data.example.com/...", r.Status, r.Body)
		}

		// Without trust, the same headers are the client's word: ignored.
		plain := servertest.New(t, st)
		r = plain.Do(t, servertest.Request{Path: "/users/me/", Key: owner.Key,
			Header: map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "data.example.com"}})
		if r.Status != http.StatusOK || strings.Contains(string(r.Body), "data.example.com") {
			t.Fatalf("an untrusted peer's X-Forwarded-Host made links: %d %.300s", r.Status, r.Body)
		}
	})
}
