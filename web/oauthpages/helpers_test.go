package oauthpages_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/geopub/geopub/internal/server/servertest"
)

// oauthRedirect is the plugin's loopback redirect URI (api-shapes §1.3);
// clients register it without a port and may send any port.
const (
	oauthRegistered = "http://127.0.0.1/"
	oauthRedirect   = "http://127.0.0.1:8989/"
)

// oauthClient registers a client as admin through the REST API and
// returns its client_id and secret (confidential clients only).
func oauthClient(t *testing.T, e *servertest.Env, admin *servertest.User, kind, scope string) (string, string) {
	t.Helper()
	resp := e.Do(t, servertest.Request{Method: http.MethodPost, Path: "/oauth-clients/", Key: admin.Key,
		Body: map[string]any{"name": "QGIS Plugin", "client_type": kind, "redirect_uris": []string{oauthRegistered}, "scope": scope}})
	if resp.Status != http.StatusCreated {
		t.Fatalf("registering a client: %d %s", resp.Status, resp.Body)
	}
	var c struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	resp.JSON(t, &c)
	return c.ClientID, c.ClientSecret
}

// oauthBrowser is a user's browser: a cookie jar signed in through the
// session API, not following redirects (the loopback one has no server).
type oauthBrowser struct {
	*http.Client
}

func oauthSignIn(t *testing.T, e *servertest.Env, u *servertest.User) *oauthBrowser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &oauthBrowser{Client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	body, _ := json.Marshal(map[string]string{"email": u.Email, "password": servertest.Password})
	resp, err := b.Post(e.API+"/session/", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("signing in: %d", resp.StatusCode)
	}
	return b
}

var (
	oauthHiddenRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)
)

// oauthConsent opens the authorization URL as b, checks the consent
// page, and answers it with decision; it returns the redirect.
func oauthConsent(t *testing.T, b *oauthBrowser, authURL, decision string, wantWords ...string) *url.URL {
	t.Helper()
	resp, err := b.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent page: %d %s", resp.StatusCode, page)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("consent page CSP %q", csp)
	}
	for _, w := range wantWords {
		if !strings.Contains(html.UnescapeString(string(page)), w) {
			t.Errorf("consent page lacks %q:\n%s", w, page)
		}
	}
	form := url.Values{"decision": {decision}}
	for _, m := range oauthHiddenRE.FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	if form.Get("csrf_token") == "" {
		t.Fatalf("consent page without a CSRF field:\n%s", page)
	}
	u, _ := url.Parse(authURL)
	post, err := b.PostForm(u.Scheme+"://"+u.Host+"/o/authorize/", form)
	if err != nil {
		t.Fatal(err)
	}
	post.Body.Close()
	if post.StatusCode != http.StatusSeeOther {
		t.Fatalf("consent answer: %d", post.StatusCode)
	}
	to, err := url.Parse(post.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// oauthConfig is the client side, golang.org/x/oauth2.
func oauthConfig(e *servertest.Env, clientID string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:    clientID,
		Endpoint:    oauth2.Endpoint{AuthURL: e.HTTP.URL + "/o/authorize/", TokenURL: e.HTTP.URL + "/o/token/", AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: oauthRedirect,
		Scopes:      []string{"read"},
	}
}

// oauthCode runs the authorization as the signed-in browser b and
// returns the code and the verifier.
func oauthCode(t *testing.T, b *oauthBrowser, cfg *oauth2.Config) (string, string) {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	to := oauthConsent(t, b, cfg.AuthCodeURL("st-1", oauth2.S256ChallengeOption(verifier)), "allow")
	if to.Host != "127.0.0.1:8989" || to.Query().Get("state") != "st-1" || to.Query().Get("code") == "" {
		t.Fatalf("redirect after Allow: %s", to)
	}
	return to.Query().Get("code"), verifier
}

// oauthCall calls the API with the access token as Bearer.
func oauthCall(t *testing.T, e *servertest.Env, token, path string) *servertest.Response {
	t.Helper()
	return e.Do(t, servertest.Request{Path: path, Header: map[string]string{"Authorization": "Bearer " + token}})
}

// oauthPost posts a form to the site.
func oauthPost(t *testing.T, e *servertest.Env, path string, form url.Values, header map[string]string) *servertest.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, e.HTTP.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return &servertest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// oauthErrorCode is the error field of an RFC 6749 §5.2 answer.
func oauthErrorCode(t *testing.T, r *servertest.Response) string {
	t.Helper()
	var b struct {
		Error string `json:"error"`
	}
	r.JSON(t, &b)
	return b.Error
}
