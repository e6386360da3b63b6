package signin_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// ssoHostile is Geopub with the scripted provider as "scripted".
type ssoHostile struct {
	env  *servertest.Env
	op   *ssoScripted
	good ssoKey
}

func ssoStartHostile(t *testing.T, st *store.Store) *ssoHostile {
	t.Helper()
	good := ssoNewKey(t, "k1")
	op := ssoStartScripted(t, good)
	cfg := ssoConfig(t, map[string]any{"name": "scripted", "issuer": op.Issuer(),
		"client_id": "geopub", "client_secret_env": "SSO_TEST_SECRET"})
	return &ssoHostile{env: ssoEnv(t, st, cfg), op: op, good: good}
}

// attempt begins a sign-in with c, scripts the ID token the provider's
// token endpoint will give (made from the nonce of the authorization
// request), and returns the callback's answer.
func (h *ssoHostile) attempt(t *testing.T, c *http.Client, token func(nonce string) string) (*http.Response, string) {
	t.Helper()
	resp, body := ssoGet(t, c, h.env.HTTP.URL+"/auth/oidc/scripted/start?next=/signin/%3Fdone%3D1")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d %s", resp.StatusCode, body)
	}
	q := ssoQueryOf(t, resp.Header.Get("Location"))
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("nonce") == "" ||
		q.Get("state") == "" || q.Get("client_id") != "geopub" {
		t.Fatalf("authorization request lacks PKCE S256, nonce, state or client: %v", q)
	}
	nonce := q.Get("nonce")
	h.op.Expect(q.Get("code_challenge"), func() string { return token(nonce) })
	return ssoGet(t, c, h.env.HTTP.URL+"/auth/oidc/scripted/callback?"+url.Values{"state": {q.Get("state")}, "code": {"c1"}}.Encode())
}

// TestSSORefusesBadIDTokens: forged, expired, wrong-audience,
// wrong-nonce, wrong-issuer and wrong-azp ID tokens are refused with a
// clear 401 page and no session; a good token (also one signed by a key
// the provider rotated in after Geopub read its JWKS) signs in.
func TestSSORefusesBadIDTokens(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		h := ssoStartHostile(t, st)
		iss := h.op.Issuer()
		forger := ssoNewKey(t, "k1") // the good key's id, another key
		stranger := ssoNewKey(t, "k-unknown")
		claims := func(nonce string) map[string]any {
			return ssoClaims(iss, "geopub", nonce, "sub-1", "grace@example.org")
		}
		bad := []struct {
			name  string
			token func(nonce string) string
		}{
			{"forged with the good kid", func(n string) string { return ssoSign(t, forger, claims(n)) }},
			{"signed by an unknown key", func(n string) string { return ssoSign(t, stranger, claims(n)) }},
			{"expired", func(n string) string {
				c := claims(n)
				c["iat"], c["exp"] = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
				return ssoSign(t, h.good, c)
			}},
			{"issued in the future", func(n string) string {
				c := claims(n)
				c["iat"], c["exp"] = time.Now().Add(time.Hour).Unix(), time.Now().Add(2*time.Hour).Unix()
				return ssoSign(t, h.good, c)
			}},
			{"wrong audience", func(n string) string {
				c := claims(n)
				c["aud"] = "another-client"
				return ssoSign(t, h.good, c)
			}},
			{"wrong azp", func(n string) string {
				c := claims(n)
				c["aud"], c["azp"] = []string{"geopub", "another-client"}, "another-client"
				return ssoSign(t, h.good, c)
			}},
			{"wrong nonce", func(n string) string { return ssoSign(t, h.good, claims("not-"+n)) }},
			{"wrong issuer", func(n string) string {
				c := claims(n)
				c["iss"] = "http://127.0.0.1:1/evil"
				return ssoSign(t, h.good, c)
			}},
			{"no subject", func(n string) string {
				c := claims(n)
				delete(c, "sub")
				return ssoSign(t, h.good, c)
			}},
			{"not a JWT", func(string) string { return "garbage.token.here" }},
		}
		for _, tc := range bad {
			c := ssoBrowser(t, false)
			resp, body := h.attempt(t, c, tc.token)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: %d, want 401: %s", tc.name, resp.StatusCode, body)
				continue
			}
			ssoContains(t, tc.name, body, "could not be verified")
			if ssoHasSessionCookie(resp) || ssoSessions(t, h.env) != 0 {
				t.Errorf("%s: a session was made", tc.name)
			}
			if email, _ := ssoMe(t, h.env, c); email != "" {
				t.Errorf("%s: signed in as %s", tc.name, email)
			}
		}

		// Key rotation: the provider starts signing with a key Geopub
		// has not seen; the unknown kid makes it read the JWKS again.
		reads := h.op.JWKSReads()
		rotated := ssoNewKey(t, "k2")
		h.op.Publish(rotated)
		c := ssoBrowser(t, false)
		resp, body := h.attempt(t, c, func(n string) string { return ssoSign(t, rotated, claims(n)) })
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin/?done=1" || !ssoHasSessionCookie(resp) {
			t.Fatalf("good token with a rotated key: %d %s %s", resp.StatusCode, resp.Header.Get("Location"), body)
		}
		if h.op.JWKSReads() <= reads {
			t.Errorf("the JWKS was not read again for the new key")
		}
		if email, _ := ssoMe(t, h.env, c); email != "grace@example.org" {
			t.Fatalf("users/me after the good sign-in: %q", email)
		}
	})
}

// TestSSORefusesBrokenCallbacks: the provider's error, a state used
// twice, a state from another browser, a missing state and an unknown
// provider each get a clear 4xx page and no session.
func TestSSORefusesBrokenCallbacks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		h := ssoStartHostile(t, st)
		base := h.env.HTTP.URL + "/auth/oidc/scripted/"
		start := func(c *http.Client) url.Values {
			resp, body := ssoGet(t, c, base+"start?next=https://evil.example/")
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("start: %d %s", resp.StatusCode, body)
			}
			return ssoQueryOf(t, resp.Header.Get("Location"))
		}
		check := func(name string, resp *http.Response, body string, status int, want string) {
			t.Helper()
			if resp.StatusCode != status {
				t.Errorf("%s: %d, want %d: %s", name, resp.StatusCode, status, body)
				return
			}
			ssoContains(t, name, body, want)
			if ssoHasSessionCookie(resp) || ssoSessions(t, h.env) != 0 {
				t.Errorf("%s: a session was made", name)
			}
		}
		c := ssoBrowser(t, false)
		q := start(c)
		resp, body := ssoGet(t, c, base+"callback?"+url.Values{"state": {q.Get("state")}, "error": {"access_denied"},
			"error_description": {"The user said no"}}.Encode())
		check("provider error", resp, body, http.StatusUnauthorized, "access_denied")
		ssoContains(t, "provider error", body, "The user said no")
		// That state is used up.
		resp, body = ssoGet(t, c, base+"callback?"+url.Values{"state": {q.Get("state")}, "code": {"x"}}.Encode())
		check("state used twice", resp, body, http.StatusBadRequest, "expired or was already used")

		q = start(c)
		resp, body = ssoGet(t, ssoBrowser(t, false), base+"callback?"+url.Values{"state": {q.Get("state")}, "code": {"x"}}.Encode())
		check("another browser", resp, body, http.StatusBadRequest, "another browser")

		resp, body = ssoGet(t, c, base+"callback?code=x")
		check("no state", resp, body, http.StatusBadRequest, "no state")
		resp, body = ssoGet(t, c, h.env.HTTP.URL+"/auth/oidc/nobody/start")
		check("unknown provider", resp, body, http.StatusNotFound, "no identity provider")

		// An off-site next is dropped: a good sign-in begun with
		// next=https://evil.example/ lands on /.
		q = start(c)
		h.op.Expect(q.Get("code_challenge"), func() string {
			return ssoSign(t, h.good, ssoClaims(h.op.Issuer(), "geopub", q.Get("nonce"), "sub-2", "kim@example.org"))
		})
		resp, body = ssoGet(t, c, base+"callback?"+url.Values{"state": {q.Get("state")}, "code": {"x"}}.Encode())
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Fatalf("off-site next: %d %q %s", resp.StatusCode, resp.Header.Get("Location"), body)
		}
	})
}
