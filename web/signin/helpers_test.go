package signin_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/session"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/sso"
	"github.com/geopub/geopub/internal/store"
)

// ssoConfig writes providers as the operator's JSON file and reads it
// back with sso.LoadConfig.
func ssoConfig(t *testing.T, providers ...map[string]any) sso.Config {
	t.Helper()
	data, err := json.Marshal(map[string]any{"providers": providers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "oidc.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := sso.LoadConfig(path, func(name string) string {
		if name == "SSO_TEST_SECRET" {
			return "scripted-secret"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// ssoEnv starts Geopub over st with cfg's providers.
func ssoEnv(t *testing.T, st *store.Store, cfg sso.Config) *servertest.Env {
	t.Helper()
	return servertest.NewWith(t, st, func(c *server.Config) { c.SSO = cfg })
}

// ssoBrowser is an HTTP client with a cookie jar; follow says whether it
// follows redirects.
func ssoBrowser(t *testing.T, follow bool) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	if !follow {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return c
}

// ssoGet fetches u and returns the response with its body read.
func ssoGet(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// ssoSessions counts the sessions in the store.
func ssoSessions(t *testing.T, e *servertest.Env) int {
	t.Helper()
	n, err := e.Store.Client.Session.Query().Where(session.ExpiresAtGT(timeNow())).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ssoHasSessionCookie reports whether resp sets a session cookie.
func ssoHasSessionCookie(resp *http.Response) bool {
	for _, c := range resp.Cookies() {
		if c.Name == auth.SessionCookie && c.Value != "" {
			return true
		}
	}
	return false
}

// ssoMe reads GET /users/me with c's cookies and returns the e-mail
// address, or "" with the status when it is not 200.
func ssoMe(t *testing.T, e *servertest.Env, c *http.Client) (string, int) {
	t.Helper()
	resp, body := ssoGet(t, c, e.API+"/users/me/")
	if resp.StatusCode != http.StatusOK {
		return "", resp.StatusCode
	}
	var me struct {
		Email string `json:"email"`
	}
	if err := json.Unmarshal([]byte(body), &me); err != nil {
		t.Fatalf("users/me: %v: %s", err, body)
	}
	return me.Email, resp.StatusCode
}

// ssoQueryOf parses the query of a Location.
func ssoQueryOf(t *testing.T, loc string) url.Values {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// ssoContains fails unless body contains want.
func ssoContains(t *testing.T, what, body, want string) {
	t.Helper()
	if !strings.Contains(body, want) {
		t.Fatalf("%s: want %q in:\n%s", what, want, body)
	}
}

func readAll(resp *http.Response) string {
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
