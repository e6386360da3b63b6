package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// clientFrom returns an HTTP client whose connections come from the
// loopback address ip (Linux routes all of 127.0.0.0/8 to lo), so a test
// can sign in from two client addresses.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// postFrom POSTs a JSON body from client c and returns the status, the
// Retry-After header and the body.
func postFrom(t *testing.T, c *http.Client, url string, body any) (int, string, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := c.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(out)
}

// Issue 11, defect 10: five wrong passwords for a known e-mail address
// locked the account for 15 minutes, for its owner too. Every door that
// checks passwords (POST /tokens, POST /session/, the GraphQL login
// mutation) now throttles per account and client address: the guessing
// address gets 429 with Retry-After, the owner elsewhere signs in at once.
func TestSignInThrottleSparesOwner(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a, b := clientFrom("127.0.0.1"), clientFrom("127.0.0.2")
		doors := []struct {
			name string
			try  func(c *http.Client, email, pw string) (int, string, string)
			ok   int
		}{
			{"POST /tokens", func(c *http.Client, email, pw string) (int, string, string) {
				return postFrom(t, c, e.API+"/tokens", map[string]any{"grant_type": "password", "username": email, "password": pw})
			}, http.StatusCreated},
			{"POST /session/", func(c *http.Client, email, pw string) (int, string, string) {
				return postFrom(t, c, e.API+"/session/", map[string]any{"email": email, "password": pw})
			}, http.StatusOK},
			{"GraphQL login", func(c *http.Client, email, pw string) (int, string, string) {
				st, ra, body := postFrom(t, c, e.HTTP.URL+"/graphql", map[string]any{
					"query":     `mutation($e: String!, $p: String!) { login(email: $e, password: $p) { csrfToken } }`,
					"variables": map[string]any{"e": email, "p": pw}})
				var g servertest.GraphQLResponse
				_ = json.Unmarshal([]byte(body), &g)
				switch {
				case len(g.Errors) > 0 && g.Errors[0].Code() == "TOO_MANY_REQUESTS":
					st = http.StatusTooManyRequests
					ra = fmt.Sprint(g.Errors[0].Extensions["retryAfter"])
				case strings.Contains(body, "UNAUTHENTICATED"):
					st = http.StatusUnauthorized
				}
				return st, ra, body
			}, http.StatusOK},
		}
		for _, door := range doors {
			u := e.NewUser(t, "Owner")
			for i := range 5 {
				if st, _, body := door.try(a, u.Email, "wrong password"); st != http.StatusUnauthorized {
					t.Fatalf("%s: failure %d: %d %s", door.name, i+1, st, body)
				}
			}
			if st, _, body := door.try(b, u.Email, servertest.Password); st != door.ok {
				t.Fatalf("%s: owner from another address after 5 failures: %d %s; want %d", door.name, st, body, door.ok)
			}
			st, retry, body := door.try(a, u.Email, servertest.Password)
			if st != http.StatusTooManyRequests {
				t.Fatalf("%s: right password from the guessing address: %d %s; want 429", door.name, st, body)
			}
			if retry == "" || retry == "0" || retry == "<nil>" {
				t.Fatalf("%s: 429 without Retry-After (or retryAfter): %s", door.name, body)
			}
		}
	})
}
