package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/ratelimit"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// ratelimitEnv starts a service with the rate limits of spec; proxies,
// when set, are its trusted proxies.
// syncEvery, when positive, shares the counts in the background.
func ratelimitEnv(t *testing.T, st *store.Store, spec, proxies string, syncEvery time.Duration) *servertest.Env {
	t.Helper()
	cfg, err := ratelimit.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg.SyncEvery = -1
	if syncEvery > 0 {
		cfg.SyncEvery = syncEvery
	}
	trusted, err := forwarded.Parse(proxies)
	if err != nil {
		t.Fatal(err)
	}
	return servertest.NewWith(t, st, func(c *server.Config) {
		c.RateLimits = cfg
		c.TrustedProxies = trusted
	})
}

// ratelimitExpect checks one answer of the reads policy (quota 3 an hour):
// its status, the remaining count, and that the reset is within the
// window, Retry-After agreeing with it on a refusal.
func ratelimitExpect(t *testing.T, who string, res *servertest.Response, status, remaining int) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("%s: status %d, want %d: %s", who, res.Status, status, res.Body)
	}
	if got := res.Header.Get("RateLimit-Policy"); got != `"reads";q=3;w=3600` {
		t.Fatalf("%s: RateLimit-Policy %q", who, got)
	}
	state := res.Header.Get("RateLimit")
	var r, reset int
	if _, err := fmt.Sscanf(state, `"reads";r=%d;t=%d`, &r, &reset); err != nil {
		t.Fatalf("%s: RateLimit %q: %v", who, state, err)
	}
	if r != remaining || reset < 1 || reset > 3600 {
		t.Fatalf("%s: RateLimit %q, want r=%d and 1 <= t <= 3600", who, state, remaining)
	}
	retry := res.Header.Get("Retry-After")
	if status != http.StatusTooManyRequests {
		if retry != "" {
			t.Fatalf("%s: Retry-After %q on an admitted answer", who, retry)
		}
		return
	}
	if s, err := strconv.Atoi(retry); err != nil || s < reset-1 || s > reset {
		t.Fatalf("%s: Retry-After %q, RateLimit t=%d", who, retry, reset)
	}
	if d := res.Detail(t); !strings.Contains(d, "reads rate limit allows 3 requests per 3600 seconds") {
		t.Fatalf("%s: detail %q", who, d)
	}
}

// ratelimitDrive makes four reads as one caller: three admitted, counting
// down, and the fourth refused.
func ratelimitDrive(t *testing.T, e *servertest.Env, who string, req servertest.Request) {
	t.Helper()
	for i, want := range []int{2, 1, 0} {
		ratelimitExpect(t, fmt.Sprintf("%s, read %d", who, i+1), e.Do(t, req), http.StatusOK, want)
	}
	ratelimitExpect(t, who+", read 4", e.Do(t, req), http.StatusTooManyRequests, 0)
}

// A token, a user's session and an anonymous address each have their
// bucket of the reads policy: past it, 429 with Retry-After and the IETF
// headers, in the REST error shape.
func TestRateLimitByTokenSessionAndAddress(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := ratelimitEnv(t, st, "reads=3/1h,writes=100/1h", "", 0)
		u := e.NewUser(t, "Limited")
		ratelimitDrive(t, e, "token", servertest.Request{Path: "/licenses", Key: u.Key})
		// Another token of the same user has its own bucket.
		other := e.Token(t, u.User, auth.ScopeCatalog)
		ratelimitExpect(t, "second token", e.Do(t, servertest.Request{Path: "/licenses", Key: other}), http.StatusOK, 2)
		// Writes are another class: the spent reads do not refuse them.
		res := e.Do(t, servertest.Request{Method: http.MethodPost, Path: "/licenses", Key: u.Key, Body: map[string]any{}})
		if res.Status == http.StatusTooManyRequests || res.Header.Get("RateLimit-Policy") != `"writes";q=100;w=3600` {
			t.Fatalf("a write after spent reads: %d %v", res.Status, res.Header)
		}
		// The user's session requests count by user.
		_, cookie, err := e.Server.Resolver.Auth.StartSession(context.Background(), u.User)
		if err != nil {
			t.Fatal(err)
		}
		session := servertest.Request{Path: "/licenses", Header: map[string]string{"Cookie": auth.SessionCookie + "=" + cookie}}
		ratelimitDrive(t, e, "session", session)
		_, cookie2, err := e.Server.Resolver.Auth.StartSession(context.Background(), u.User)
		if err != nil {
			t.Fatal(err)
		}
		session.Header = map[string]string{"Cookie": auth.SessionCookie + "=" + cookie2}
		ratelimitExpect(t, "the user's second session", e.Do(t, session), http.StatusTooManyRequests, 0)
		// Anonymous requests count by address.
		ratelimitDrive(t, e, "anonymous", servertest.Request{Path: "/licenses"})
		// Unlimited routes carry no headers.
		res = e.Do(t, servertest.Request{Path: e.HTTP.URL + "/healthz"})
		if res.Header.Get("RateLimit") != "" {
			t.Fatal("/healthz carries RateLimit")
		}
	})
}

// Behind a trusted proxy the client its X-Forwarded-For names is counted;
// from an untrusted peer the header is ignored and the peer is counted.
func TestRateLimitByForwardedClient(t *testing.T) {
	st := storetest.Open(t, dialect.SQLite, storetest.Options{})
	t.Run("trusted", func(t *testing.T) {
		e := ratelimitEnv(t, st, "reads=3/1h", "127.0.0.1", 0)
		from := func(client string) servertest.Request {
			return servertest.Request{Path: "/licenses", Header: map[string]string{"X-Forwarded-For": client}}
		}
		ratelimitDrive(t, e, "client 198.51.100.7", from("198.51.100.7"))
		ratelimitExpect(t, "client 198.51.100.8", e.Do(t, from("198.51.100.8")), http.StatusOK, 2)
		// A client's invented hop on the left does not change who it is.
		ratelimitExpect(t, "spoofing 198.51.100.7", e.Do(t, from("203.0.113.1, 198.51.100.7")), http.StatusTooManyRequests, 0)
	})
	t.Run("untrusted", func(t *testing.T) {
		e := ratelimitEnv(t, st, "reads=3/1h", "10.9.9.9", 0)
		for i, want := range []int{2, 1, 0} {
			req := servertest.Request{Path: "/licenses", Header: map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i+1)}}
			ratelimitExpect(t, fmt.Sprintf("peer, read %d", i+1), e.Do(t, req), http.StatusOK, want)
		}
		req := servertest.Request{Path: "/licenses", Header: map[string]string{"X-Forwarded-For": "198.51.100.99"}}
		ratelimitExpect(t, "peer, read 4", e.Do(t, req), http.StatusTooManyRequests, 0)
	})
}

// Refusals take the door's own error format: an OWS exception report on
// WFS, with the headers.
func TestRateLimitDoorFormats(t *testing.T) {
	st := storetest.Open(t, dialect.SQLite, storetest.Options{})
	e := ratelimitEnv(t, st, "ogc=1/1h", "", 0)
	url := e.HTTP.URL + "/services/wfs?SERVICE=WFS&REQUEST=GetCapabilities"
	if res := e.Do(t, servertest.Request{Path: url}); res.Status != http.StatusOK || res.Header.Get("RateLimit-Policy") != `"ogc";q=1;w=3600` {
		t.Fatalf("first GetCapabilities: %d %v", res.Status, res.Header)
	}
	res := e.Do(t, servertest.Request{Path: url})
	if res.Status != http.StatusTooManyRequests || !strings.Contains(string(res.Body), "ExceptionReport") ||
		res.Header.Get("Retry-After") == "" || res.Header.Get("RateLimit-Policy") != `"ogc";q=1;w=3600` {
		t.Fatalf("second GetCapabilities: %d %v %s", res.Status, res.Header, res.Body)
	}
}

// Tiles are read by maps of any origin: their refusals carry CORS headers
// that let the map's script read the 429 and the rate-limit headers.
func TestRateLimitTilesCORS(t *testing.T) {
	st := storetest.Open(t, dialect.SQLite, storetest.Options{})
	e := ratelimitEnv(t, st, "tiles=1/1h", "", 0)
	url := e.HTTP.URL + "/services/tiles/v1/layer_999999/tile.json"
	if res := e.Do(t, servertest.Request{Path: url}); res.Header.Get("RateLimit-Policy") != `"tiles";q=1;w=3600` ||
		res.Status == http.StatusTooManyRequests {
		t.Fatalf("first TileJSON: %d %v", res.Status, res.Header)
	}
	res := e.Do(t, servertest.Request{Path: url})
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "RateLimit-Policy") || res.Detail(t) == "" {
		t.Fatalf("second TileJSON: %d %v %s", res.Status, res.Header, res.Body)
	}
}

// The OAuth endpoints are limited too, by client address: a client
// hammering /o/token/ gets RFC 6749's error body with the headers, under
// the writes policy.
func TestRateLimitOAuthToken(t *testing.T) {
	st := storetest.Open(t, dialect.SQLite, storetest.Options{})
	e := ratelimitEnv(t, st, "writes=1/1h", "", 0)
	req := servertest.Request{Method: http.MethodPost, Path: e.HTTP.URL + "/o/token/",
		Body:   "grant_type=authorization_code&code=nope&client_id=nobody",
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}
	if res := e.Do(t, req); res.Status == http.StatusTooManyRequests || res.Header.Get("RateLimit-Policy") != `"writes";q=1;w=3600` {
		t.Fatalf("first token request: %d %v %s", res.Status, res.Header, res.Body)
	}
	res := e.Do(t, req)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" ||
		res.Header.Get("Cache-Control") != "no-store" || !strings.Contains(res.Header.Get("RateLimit"), `"writes";r=0`) {
		t.Fatalf("second token request: %d %v %s", res.Status, res.Header, res.Body)
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil || body.Error != "temporarily_unavailable" ||
		!strings.Contains(body.Description, "writes rate limit allows 1 requests per 3600 seconds") {
		t.Fatalf("second token request's body %s (%v)", res.Body, err)
	}
	// Reads (the metadata document) have no policy here: not limited.
	if res := e.Do(t, servertest.Request{Path: e.HTTP.URL + "/.well-known/oauth-authorization-server"}); res.Status != http.StatusOK || res.Header.Get("RateLimit") != "" {
		t.Fatalf("metadata: %d %v", res.Status, res.Header)
	}
}
