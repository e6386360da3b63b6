package rest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// browser is a cookie-keeping client, as a web page would be.
type browser struct {
	t      *testing.T
	client *http.Client
	csrf   string
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, client: &http.Client{Jar: jar}}
}

func (b *browser) do(method, url, body string, csrf bool) (int, string, http.Header) {
	b.t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if csrf {
		req.Header.Set("X-CSRF-Token", b.csrf)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out), resp.Header
}

// Cookie sessions: POST /session/ signs in, unsafe requests need the CSRF
// token, DELETE signs out.
func TestSessionLoginCSRFLogout(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		b := newBrowser(t)
		session := e.API + "/session/"

		status, body, _ := b.do("POST", session, `{"email": "`+admin.Email+`", "password": "wrong password"}`, false)
		if status != http.StatusUnauthorized {
			t.Fatalf("wrong password: %d %s", status, body)
		}
		status, body, _ = b.do("POST", session, `{"email": ""}`, false)
		if status != http.StatusBadRequest || !strings.Contains(body, `"email"`) {
			t.Fatalf("empty login: %d %s", status, body)
		}
		status, body, hdr := b.do("POST", session, `{"email": "`+strings.ToUpper(admin.Email)+`", "password": "`+servertest.Password+`"}`, false)
		if status != http.StatusOK {
			t.Fatalf("login: %d %s", status, body)
		}
		cookie := strings.Join(hdr.Values("Set-Cookie"), "\n")
		if !strings.Contains(cookie, "geopub_session=") || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") {
			t.Fatalf("Set-Cookie = %s", cookie)
		}
		var s struct {
			User      struct{ ID int } `json:"user"`
			CSRFToken string           `json:"csrf_token"`
		}
		json.Unmarshal([]byte(body), &s)
		if s.User.ID != admin.ID || s.CSRFToken == "" {
			t.Fatalf("login body %s", body)
		}
		b.csrf = s.CSRFToken

		// Reads need no CSRF token; sessions are not limited by scope.
		if status, body, _ := b.do("GET", e.API+"/users/me/", "", false); status != http.StatusOK {
			t.Fatalf("me with the session: %d %s", status, body)
		}
		if status, body, _ := b.do("GET", session, "", false); status != http.StatusOK || !strings.Contains(body, s.CSRFToken) {
			t.Fatalf("GET session: %d %s", status, body)
		}
		group := `{"name": "Session Made", "country": "NZ"}`
		if status, body, _ := b.do("POST", e.API+"/group/", group, false); status != http.StatusForbidden || !strings.Contains(body, "CSRF") {
			t.Fatalf("unsafe request without CSRF token: %d %s", status, body)
		}
		if n := e.Store.Client.Group.Query().CountX(t.Context()); n != 2 {
			t.Fatal("a CSRF-refused request wrote")
		}
		if status, body, _ := b.do("POST", e.API+"/group/", group, true); status != http.StatusCreated {
			t.Fatalf("unsafe request with CSRF token: %d %s", status, body)
		}
		// GraphQL mutations with the session need the token too.
		mutation := `{"query": "mutation { createGroup(input: {name: \"Via GraphQL\", country: \"AU\"}) { id } }"}`
		if status, _, _ := b.do("POST", e.HTTP.URL+"/graphql", mutation, false); status != http.StatusForbidden {
			t.Fatalf("GraphQL mutation without CSRF token: %d", status)
		}
		if status, body, _ := b.do("POST", e.HTTP.URL+"/graphql", mutation, true); status != http.StatusOK || strings.Contains(body, "errors") {
			t.Fatalf("GraphQL mutation with CSRF token: %d %s", status, body)
		}

		if status, _, _ := b.do("DELETE", session, "", true); status != http.StatusNoContent {
			t.Fatalf("logout: %d", status)
		}
		if status, _, _ := b.do("GET", e.API+"/users/me/", "", false); status != http.StatusUnauthorized {
			t.Fatalf("me after logout: %d", status)
		}
		if status, _, _ := b.do("GET", session, "", false); status != http.StatusNotFound {
			t.Fatalf("GET session after logout: %d", status)
		}
	})
}

// The GraphQL login mutation starts the same cookie session.
func TestGraphQLLogin(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Pat")
		b := newBrowser(t)
		q := `{"query": "mutation($e: String!, $p: String!) { login(email: $e, password: $p) { user { id } csrfToken } }", "variables": {"e": "` +
			u.Email + `", "p": "` + servertest.Password + `"}}`
		status, body, _ := b.do("POST", e.HTTP.URL+"/graphql", q, false)
		var out struct {
			Data struct {
				Login struct {
					User      struct{ ID string }
					CsrfToken string
				}
			}
		}
		json.Unmarshal([]byte(body), &out)
		if status != http.StatusOK || out.Data.Login.CsrfToken == "" {
			t.Fatalf("login mutation: %d %s", status, body)
		}
		// Every POST with the session cookie needs the CSRF token.
		b.csrf = out.Data.Login.CsrfToken
		if status, body, _ := b.do("POST", e.HTTP.URL+"/graphql", `{"query": "{ me { email } }"}`, true); status != http.StatusOK || !strings.Contains(body, u.Email) {
			t.Fatalf("me over the session: %d %s", status, body)
		}
	})
}
