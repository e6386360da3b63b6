package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server/servertest"
)

type tokenRecord struct {
	ID        int        `json:"id"`
	URL       string     `json:"url"`
	Name      string     `json:"name"`
	Key       *string    `json:"key"`
	KeyHint   string     `json:"key_hint"`
	Site      string     `json:"site"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
	Scope     string     `json:"scope"`
	Referrers []string   `json:"referrers"`
}

func formPost(t *testing.T, e *env, path string, form url.Values) *servertest.Response {
	t.Helper()
	return e.Do(t, req{Method: "POST", Path: path, Body: form.Encode(),
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
}

// Spec, Tokens: "POST /tokens — OAuth 2.0 password grant ...
// application/x-www-form-urlencoded and application/json are both
// accepted → 201 token with key".
func TestCreateToken(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ivy := e.NewUser(t, "Ivy")
		r := formPost(t, e, "/tokens", url.Values{
			"grant_type": {"password"}, "username": {ivy.Email}, "password": {servertest.Password},
			"name": {"desktop"}, "scope": {"query tiles"},
		})
		expectStatus(t, r, http.StatusCreated)
		var tok tokenRecord
		r.JSON(t, &tok)
		if tok.Key == nil || len(*tok.Key) != 32 {
			t.Fatalf("key = %v, want 32 characters", tok.Key)
		}
		if !strings.HasSuffix(tok.KeyHint, "...") || !strings.HasPrefix(*tok.Key, strings.TrimSuffix(tok.KeyHint, "...")) {
			t.Fatalf("key_hint %q does not lead the key", tok.KeyHint)
		}
		if tok.Name != "desktop" || tok.Scope != "query tiles" || tok.URL != fmt.Sprintf("%s/tokens/%d/", e.API, tok.ID) ||
			tok.Site == "" || tok.CreatedAt.IsZero() {
			t.Fatalf("token = %+v", tok)
		}
		if r.Header.Get("Location") != "" {
			t.Fatal("no Location: a client following it would lose the key")
		}
		if r.Header.Get("Accepted-OAuth-Scopes") != "*" {
			t.Fatalf("Accepted-OAuth-Scopes = %q", r.Header.Get("Accepted-OAuth-Scopes"))
		}
		// The key works, with the scopes it holds.
		resp := e.Do(t, req{Path: "/users/me/", Key: *tok.Key})
		expectDetail(t, resp, http.StatusUnauthorized, "users:read")
		if resp.Header.Get("OAuth-Scopes") != "query tiles" {
			t.Fatalf("OAuth-Scopes = %q", resp.Header.Get("OAuth-Scopes"))
		}

		// JSON, default scopes, expiry and referrers.
		exp := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second)
		r = e.Do(t, req{Method: "POST", Path: "/tokens/", Body: map[string]any{
			"grant_type": "password", "username": strings.ToUpper(ivy.Email), "password": servertest.Password,
			"expires_at": exp.Format(time.RFC3339), "referrers": []string{"*.example.com", "maps.example.org"},
		}})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &tok)
		if tok.Key == nil || len(*tok.Key) != 32 || tok.ExpiresAt == nil || !tok.ExpiresAt.Equal(exp) ||
			len(tok.Referrers) != 2 || !strings.Contains(tok.Scope, "users:read") || strings.Contains(tok.Scope, "write") {
			t.Fatalf("JSON-created token = %+v", tok)
		}

		for name, tc := range map[string]struct {
			form   url.Values
			status int
		}{
			"WrongPassword":  {url.Values{"grant_type": {"password"}, "username": {ivy.Email}, "password": {"nope nope"}}, http.StatusUnauthorized},
			"UnknownUser":    {url.Values{"grant_type": {"password"}, "username": {"nobody@example.com"}, "password": {"nope nope"}}, http.StatusUnauthorized},
			"GrantMissing":   {url.Values{"username": {ivy.Email}, "password": {servertest.Password}}, http.StatusBadRequest},
			"GrantWrong":     {url.Values{"grant_type": {"client_credentials"}, "username": {ivy.Email}, "password": {servertest.Password}}, http.StatusBadRequest},
			"UnknownScope":   {url.Values{"grant_type": {"password"}, "username": {ivy.Email}, "password": {servertest.Password}, "scope": {"everything"}}, http.StatusBadRequest},
			"ExpiryInPast":   {url.Values{"grant_type": {"password"}, "username": {ivy.Email}, "password": {servertest.Password}, "expires_at": {"2001-01-01T00:00:00Z"}}, http.StatusBadRequest},
			"ExpiryGarbage":  {url.Values{"grant_type": {"password"}, "username": {ivy.Email}, "password": {servertest.Password}, "expires_at": {"soon"}}, http.StatusBadRequest},
			"BadReferrer":    {url.Values{"grant_type": {"password"}, "username": {ivy.Email}, "password": {servertest.Password}, "referrers": {"https://x.com/path"}}, http.StatusBadRequest},
			"PasswordAbsent": {url.Values{"grant_type": {"password"}, "username": {ivy.Email}}, http.StatusBadRequest},
		} {
			t.Run(name, func(t *testing.T) {
				before := e.Store.Client.Token.Query().CountX(t.Context())
				r := formPost(t, e, "/tokens", tc.form)
				expectStatus(t, r, tc.status)
				if e.Store.Client.Token.Query().CountX(t.Context()) != before {
					t.Fatal("a refused request created a token")
				}
			})
		}
		// Wrong password and unknown user read the same (no enumeration).
		a := formPost(t, e, "/tokens", url.Values{"grant_type": {"password"}, "username": {ivy.Email}, "password": {"nope nope"}})
		b := formPost(t, e, "/tokens", url.Values{"grant_type": {"password"}, "username": {"nobody@example.com"}, "password": {"nope nope"}})
		if a.Detail(t) != b.Detail(t) {
			t.Fatalf("messages differ: %q vs %q", a.Detail(t), b.Detail(t))
		}
	})
}

// "Repeated wrong passwords are throttled."
func TestTokenPasswordThrottle(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		jo := e.NewUser(t, "Jo")
		bad := url.Values{"grant_type": {"password"}, "username": {jo.Email}, "password": {"wrong wrong"}}
		var last *servertest.Response
		for i := 0; i < 10 && (last == nil || last.Status != http.StatusTooManyRequests); i++ {
			last = formPost(t, e, "/tokens", bad)
		}
		expectStatus(t, last, http.StatusTooManyRequests)
		if last.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		// Even the right password waits until the block ends.
		good := url.Values{"grant_type": {"password"}, "username": {jo.Email}, "password": {servertest.Password}}
		expectStatus(t, formPost(t, e, "/tokens", good), http.StatusTooManyRequests)
	})
}

func TestTokenLifecycle(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		kim := e.NewUser(t, "Kim")
		lee := e.NewUser(t, "Lee")
		r := e.Do(t, req{Path: "/tokens", Key: kim.Key})
		expectStatus(t, r, http.StatusOK)
		if strings.Contains(string(r.Body), `"key"`) || strings.Contains(string(r.Body), kim.Key) {
			t.Fatalf("GET /tokens shows a key: %s", r.Body)
		}
		var toks []tokenRecord
		r.JSON(t, &toks)
		if len(toks) != 1 || toks[0].KeyHint == "" || toks[0].URL == "" || toks[0].Name != "test" {
			t.Fatalf("tokens = %s", r.Body)
		}
		one := fmt.Sprintf("/tokens/%d/", toks[0].ID)
		r = e.Do(t, req{Path: one, Key: kim.Key})
		expectStatus(t, r, http.StatusOK)
		if strings.Contains(string(r.Body), `"key"`) {
			t.Fatalf("token detail shows the key: %s", r.Body)
		}
		// Another user's token is not found.
		expectStatus(t, e.Do(t, req{Path: one, Key: lee.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: one, Key: lee.Key}), http.StatusNotFound)
		authMatrix(t, e, req{Path: "/tokens"}, "tokens:read", nil)
		wrong := e.Token(t, kim.User, "query")
		expectDetail(t, e.Do(t, req{Path: "/tokens", Key: wrong}), http.StatusUnauthorized, "tokens:read")

		// PUT: name, scope, expiry and referrers; the key stays.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: one, Key: kim.Key, Body: map[string]any{"scope": "root"}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: one, Key: kim.Key, Body: map[string]any{"expires_at": 5}}), http.StatusBadRequest)
		r = e.Do(t, req{Method: "PUT", Path: one, Key: kim.Key, Body: map[string]any{
			"name": "renamed", "scope": "query users:read", "expires_at": nil, "referrers": []string{"localhost"}, "key": "ignored"}})
		expectStatus(t, r, http.StatusOK)
		var tok tokenRecord
		r.JSON(t, &tok)
		if tok.Name != "renamed" || tok.Scope != "query users:read" || tok.Key != nil {
			t.Fatalf("after PUT %+v", tok)
		}
		// The referrer rule now applies: a request from elsewhere is refused.
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Key: kim.Key, Header: map[string]string{"Referer": "http://localhost:8000/"}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Key: kim.Key, Header: map[string]string{"Referer": "https://elsewhere.org/"}}), http.StatusForbidden)

		// DELETE: 204, and the key stops working.
		// The narrowed token may no longer manage tokens; another one does.
		expectDetail(t, e.Do(t, req{Method: "DELETE", Path: one, Key: kim.Key, Header: map[string]string{"Referer": "http://localhost/"}}), http.StatusUnauthorized, "tokens:write")
		manager := e.Token(t, kim.User, "tokens:read tokens:write")
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: one, Key: manager}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Key: kim.Key, Header: map[string]string{"Referer": "http://localhost/"}}), http.StatusUnauthorized)
	})
}

// Authentication rule 5: referrer rules, with the loopback names always
// accepted.
func TestTokenReferrers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		mo := e.NewUser(t, "Mo")
		r := e.Do(t, req{Method: "POST", Path: "/tokens/", Body: map[string]any{
			"grant_type": "password", "username": mo.Email, "password": servertest.Password,
			"scope": "users:read", "referrers": []string{"*.example.com"},
		}})
		expectStatus(t, r, http.StatusCreated)
		var tok tokenRecord
		r.JSON(t, &tok)
		for ref, want := range map[string]int{
			"https://maps.example.com/page": http.StatusOK,
			"https://evil.example.net/":     http.StatusForbidden,
			"http://localhost:3000/":        http.StatusOK,
			"http://127.0.0.1/":             http.StatusOK,
		} {
			got := e.Do(t, req{Path: "/users/me/", Key: *tok.Key, Header: map[string]string{"Referer": ref}})
			if got.Status != want {
				t.Errorf("Referer %s: status %d, want %d (%s)", ref, got.Status, want, got.Body)
			}
		}
	})
}
