package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/token"
)

// whoami is the handler behind the middleware in these tests: it reports
// the principal it was given.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	p := FromContext(r.Context())
	id := 0
	if p.User != nil {
		id = p.User.ID
	}
	fmt.Fprintf(w, "%s %d", p.Method, id)
})

// middlewareFixture is a service with a user, a session and tokens of
// several kinds.
type middlewareFixture struct {
	s                                  *Service
	clock                              *testClock
	userID                             int
	key, expiredKey, refKey, lockedKey string
	sessionValue, csrf                 string
}

func newMiddlewareFixture(t *testing.T) *middlewareFixture {
	t.Helper()
	s, clock := newTestService(t, Config{})
	ctx := context.Background()
	f := &middlewareFixture{s: s, clock: clock}
	u := createUser(t, s, "kim@example.com", "kim-password", false)
	locked := createUser(t, s, "lee@example.com", "lee-password", false)
	f.userID = u.ID
	soon := clock.t.Add(time.Minute)
	mk := func(owner *ent.User, spec TokenSpec) string {
		t.Helper()
		_, key, err := s.CreateToken(ctx, owner, spec)
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	f.key = mk(u, TokenSpec{Scope: "tokens:read query"})
	f.expiredKey = mk(u, TokenSpec{ExpiresAt: &soon})
	f.refKey = mk(u, TokenSpec{Referrers: []string{"*.example.com"}})
	f.lockedKey = mk(locked, TokenSpec{})
	s.client.User.UpdateOne(locked).SetIsLocked(true).ExecX(ctx)
	sess, value, err := s.StartSession(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	f.sessionValue, f.csrf = value, sess.CsrfToken
	clock.advance(2 * time.Minute) // the expiring token is now expired
	return f
}

func TestMiddleware(t *testing.T) {
	f := newMiddlewareFixture(t)
	user := fmt.Sprint(f.userID)
	tests := []struct {
		name     string
		method   string
		target   string
		headers  map[string]string
		cookie   string
		keyParam bool
		status   int
		body     string // the principal, or the detail of an error
		scopes   string // expected OAuth-Scopes
	}{
		{name: "anonymous", status: 200, body: "anonymous 0"},
		{name: "key scheme", headers: map[string]string{"Authorization": "key " + f.key},
			status: 200, body: "token " + user, scopes: "query tokens:read"},
		{name: "Bearer scheme", headers: map[string]string{"Authorization": "Bearer " + f.key},
			status: 200, body: "token " + user, scopes: "query tokens:read"},
		{name: "scheme case-insensitive", headers: map[string]string{"Authorization": "KEY " + f.key},
			status: 200, body: "token " + user, scopes: "query tokens:read"},
		{name: "other scheme ignored", headers: map[string]string{"Authorization": "Basic dTpw"},
			status: 200, body: "anonymous 0"},
		{name: "unknown token", headers: map[string]string{"Authorization": "key " + strings.Repeat("x", 32)},
			status: 401, body: "Invalid token."},
		{name: "malformed token", headers: map[string]string{"Authorization": "key short"},
			status: 401, body: "Invalid token."},
		{name: "empty token", headers: map[string]string{"Authorization": "Bearer"},
			status: 401, body: "Invalid token."},
		{name: "expired token", headers: map[string]string{"Authorization": "key " + f.expiredKey},
			status: 401, body: "Token has expired."},
		{name: "locked user's token", headers: map[string]string{"Authorization": "key " + f.lockedKey},
			status: 401, body: "User account is locked."},
		{name: "referrer allowed", headers: map[string]string{"Authorization": "key " + f.refKey,
			"Referer": "https://maps.example.com/x"}, status: 200, body: "token " + user, scopes: DefaultScopes.String()},
		{name: "referrer rejected", headers: map[string]string{"Authorization": "key " + f.refKey,
			"Referer": "https://evil.test/"}, status: 403, body: "This token may not be used from this referrer."},
		{name: "referrer missing", headers: map[string]string{"Authorization": "key " + f.refKey},
			status: 403, body: "This token may not be used from this referrer."},
		{name: "referrer localhost", headers: map[string]string{"Authorization": "key " + f.refKey,
			"Referer": "http://localhost:5173/"}, status: 200, body: "token " + user, scopes: DefaultScopes.String()},
		{name: "key param refused by default", target: "/?key=" + f.key, status: 200, body: "anonymous 0"},
		{name: "key param accepted for query APIs", target: "/?key=" + f.key, keyParam: true,
			status: 200, body: "token " + user, scopes: "query tokens:read"},
		{name: "bad key param", target: "/?key=nope", keyParam: true, status: 401, body: "Invalid token."},
		{name: "session GET", cookie: f.sessionValue, status: 200, body: "session " + user},
		{name: "session POST without CSRF", method: "POST", cookie: f.sessionValue,
			status: 403, body: "CSRF Failed: CSRF token missing."},
		{name: "session DELETE with wrong CSRF", method: "DELETE", cookie: f.sessionValue,
			headers: map[string]string{CSRFHeader: "wrong"}, status: 403, body: "CSRF Failed: CSRF token incorrect."},
		{name: "session POST with CSRF", method: "POST", cookie: f.sessionValue,
			headers: map[string]string{CSRFHeader: f.csrf}, status: 200, body: "session " + user},
		{name: "token POST needs no CSRF", method: "POST", cookie: f.sessionValue,
			headers: map[string]string{"Authorization": "key " + f.key}, status: 200, body: "token " + user,
			scopes: "query tokens:read"},
		{name: "anonymous POST needs no CSRF", method: "PUT", status: 200, body: "anonymous 0"},
		{name: "unknown session is anonymous", cookie: "forged", method: "POST", status: 200, body: "anonymous 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method, target := tt.method, tt.target
			if method == "" {
				method = "GET"
			}
			if target == "" {
				target = "/"
			}
			req := httptest.NewRequest(method, target, nil)
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			if tt.cookie != "" {
				req.AddCookie(&http.Cookie{Name: SessionCookie, Value: tt.cookie})
			}
			h := f.s.Middleware(whoami)
			if tt.keyParam {
				h = f.s.MiddlewareWithKeyParam(whoami)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)

			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d (body %s)", rec.Code, tt.status, rec.Body)
			}
			body := rec.Body.String()
			if tt.status != 200 {
				var e struct{ Detail string }
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
					t.Fatalf("body %q: %v", body, err)
				}
				body = e.Detail
			}
			if body != tt.body {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			if got := rec.Header().Get(HeaderAcceptedScopes); got != "*" {
				t.Errorf("Accepted-OAuth-Scopes %q, want *", got)
			}
			if got := rec.Header().Get(HeaderTokenScopes); got != tt.scopes {
				t.Errorf("OAuth-Scopes %q, want %q", got, tt.scopes)
			}
		})
	}
}

func TestMiddlewareExpiredSessionClearsCookie(t *testing.T) {
	f := newMiddlewareFixture(t)
	f.clock.advance(f.s.cfg.SessionTTL)
	req := httptest.NewRequest("GET", "/", nil)
	req.AddCookie(&http.Cookie{Name: SessionCookie, Value: f.sessionValue})
	rec := httptest.NewRecorder()
	f.s.Middleware(whoami).ServeHTTP(rec, req)
	if rec.Body.String() != "anonymous 0" {
		t.Errorf("expired session gave %q", rec.Body)
	}
	cleared := map[string]bool{}
	for _, c := range rec.Result().Cookies() {
		cleared[c.Name] = c.MaxAge < 0
	}
	if !cleared[SessionCookie] || !cleared[CSRFCookie] {
		t.Errorf("cookies not cleared: %v", rec.Header().Values("Set-Cookie"))
	}
}

func TestMiddlewareLastUsedAt(t *testing.T) {
	f := newMiddlewareFixture(t)
	ctx := context.Background()
	call := func() time.Time {
		t.Helper()
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Authorization", "key "+f.key)
		f.s.Middleware(whoami).ServeHTTP(httptest.NewRecorder(), req)
		tok, err := f.s.client.Token.Query().Where(token.KeyHash(HashKey(f.key))).Only(ctx)
		if err != nil || tok.LastUsedAt == nil {
			t.Fatalf("token %v, %v", tok, err)
		}
		return *tok.LastUsedAt
	}
	first := call()
	if !first.Equal(f.clock.t) {
		t.Fatalf("last_used_at %v, want %v", first, f.clock.t)
	}
	f.clock.advance(30 * time.Second)
	if got := call(); !got.Equal(first) {
		t.Errorf("last_used_at rewritten within a minute: %v", got)
	}
	f.clock.advance(31 * time.Second)
	if got := call(); !got.Equal(f.clock.t) {
		t.Errorf("last_used_at %v after a minute, want %v", got, f.clock.t)
	}
}

func TestCookieHook(t *testing.T) {
	for _, secure := range []bool{false, true} {
		s, clock := newTestService(t, Config{SecureCookies: secure})
		expires := clock.t.Add(time.Hour)
		h := s.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			if err := SetSessionCookie(ctx, "first", expires); err != nil {
				t.Fatal(err)
			}
			_ = SetSessionCookie(ctx, "second", expires) // replaces "first"
			_ = SetCSRFCookie(ctx, "csrf", expires)
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/", nil))
		cookies := rec.Result().Cookies()
		if len(cookies) != 2 {
			t.Fatalf("cookies %v", rec.Header().Values("Set-Cookie"))
		}
		sc, cc := cookies[0], cookies[1]
		if sc.Name != SessionCookie || sc.Value != "second" || !sc.HttpOnly || sc.Path != "/" ||
			sc.SameSite != http.SameSiteLaxMode || sc.Secure != secure || !sc.Expires.Equal(expires) {
			t.Errorf("session cookie %+v", sc)
		}
		if cc.Name != CSRFCookie || cc.HttpOnly || cc.Secure != secure {
			t.Errorf("CSRF cookie %+v", cc)
		}
	}
	if err := SetSessionCookie(context.Background(), "x", time.Now()); err == nil {
		t.Error("SetSessionCookie without middleware should fail")
	}
}

func TestClientAddr(t *testing.T) {
	tests := []struct {
		name, remote, xff string
		want              string
	}{
		{"peer", "192.0.2.1:5555", "", "192.0.2.1"},
		{"peer ipv6", "[2001:db8::7]:5555", "", "2001:db8::7"},
		{"xff never read here", "192.0.2.1:5555", "203.0.113.9", "192.0.2.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestService(t, Config{})
			var got, fromCtx string
			h := s.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, fromCtx = ClientAddr(r), ClientAddrFrom(r.Context())
			}))
			req := httptest.NewRequest("GET", "/", nil)
			req.RemoteAddr = tt.remote
			if tt.xff != "" {
				req.Header.Set("X-Forwarded-For", tt.xff)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if got != tt.want || fromCtx != tt.want {
				t.Errorf("ClientAddr = %q (context %q), want %q", got, fromCtx, tt.want)
			}
		})
	}
}

// queryParam reads the key parameter as url.ParseQuery would.
func TestQueryParam(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		ok        bool
	}{
		{"key=abc&layer=1", "abc", true},
		{"layer=1&key=abc&key=def", "abc", true},
		{"layer=1&k%65y=a%2Bb", "a+b", true},
		{"key=a+b", "a b", true},
		{"keys=abc&akey=x", "", false},
		{"", "", false},
		{"key=", "", true},
		{"key=%zz", "", false},
	} {
		got, ok := queryParam(c.raw, "key")
		if got != c.want || ok != c.ok {
			t.Errorf("queryParam(%q) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}

// The middleware sits in front of every tile and point query: a request
// with a key checked moments ago costs a handful of allocations (the
// request's facts and principal, their contexts, the request copy), not
// one per thing the audit log or a session might later want to read.
// Before issue 29 this was 7; its first cut made it 14 (the client
// address twice, the User-Agent, the audit actor built up front), and
// the tile and point-query benchmarks lost 5-9% (bench/*/RESULTS.md).
func TestMiddlewareAllocationsWithACachedKey(t *testing.T) {
	f := newMiddlewareFixture(t)
	var got Principal
	h := f.s.KeyParamMiddleware(WriteFailure)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = FromContext(r.Context())
	}))
	req := httptest.NewRequest(http.MethodGet, "/?key="+f.key, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req) // the key cache is filled
	allocs := testing.AllocsPerRun(200, func() {
		for k := range w.Header() {
			delete(w.Header(), k)
		}
		h.ServeHTTP(w, req)
	})
	if got.Method != TokenAuth || got.User == nil || got.User.ID != f.userID {
		t.Fatalf("principal %+v, want the key's user", got)
	}
	if allocs > 6 {
		t.Errorf("a request with a cached key allocates %.0f times, want at most 6", allocs)
	}
}
