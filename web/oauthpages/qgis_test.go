package oauthpages_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// qgisScopes are what the plugin asks for in step 3 (api-shapes §1.3).
const qgisScopes = "query tiles catalog users:read sets:read layers:read repos:read repos:push viewers:read viewers:write wxs:wfs exports:write notifications:read"

// The QGIS plugin's three steps exactly as api-shapes §1.3 lists them,
// then refresh and step 3 again: each key works, within the read scope
// consented to.
func TestOAuthQGISPluginFlow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		ann := e.NewUser(t, "Ann")
		id, _ := oauthClient(t, e, admin, "public", "read")
		b := oauthSignIn(t, e, ann)

		// Step 1: the browser at /o/authorize/.
		verifier := oauth2.GenerateVerifier()
		q := url.Values{"scope": {"read"}, "response_type": {"code"}, "response_mode": {"query"}, "client_id": {id},
			"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"},
			"state": {"qgis-state"}, "redirect_uri": {oauthRedirect}}
		to := oauthConsent(t, b, e.HTTP.URL+"/o/authorize/?"+q.Encode(), "allow", "read")
		code := to.Query().Get("code")
		if code == "" || to.Query().Get("state") != "qgis-state" {
			t.Fatalf("step 1 redirect %s", to)
		}
		// Step 2: the token.
		tok := oauthTokens(t, e, url.Values{"grant_type": {"authorization_code"}, "client_id": {id},
			"code_verifier": {verifier}, "code": {code}, "redirect_uri": {oauthRedirect}}, nil)
		// Step 3: an API key.
		qgisKey(t, e, tok.AccessToken)

		// Refresh, then step 3 again.
		r := oauthPost(t, e, "/o/token/", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {tok.RefreshToken}}, nil)
		var again tokenAnswer
		r.JSON(t, &again)
		if r.Status != http.StatusOK || again.AccessToken == "" || again.RefreshToken == "" || strings.Contains(string(r.Body), `"error"`) {
			t.Fatalf("refresh: %d %s", r.Status, r.Body)
		}
		key := qgisKey(t, e, again.AccessToken)

		// The key belongs to the grant: revoking the grant ends it.
		if r := oauthPost(t, e, "/o/revoke_token/", url.Values{"client_id": {id}, "token": {again.RefreshToken}}, nil); r.Status != http.StatusOK {
			t.Fatalf("revoke: %d", r.Status)
		}
		if r := e.Do(t, servertest.Request{Path: "/users/me/", Key: key}); r.Status != http.StatusUnauthorized {
			t.Errorf("key of a revoked grant: %d", r.Status)
		}
	})
}

// qgisKey is step 3: POST /tokens/ as a form with the access token; the
// key it answers works with `Authorization: key`, and holds only what
// the read grant covers.
func qgisKey(t *testing.T, e *servertest.Env, access string) string {
	t.Helper()
	r := oauthPost(t, e, "/services/api/v1.x/tokens/", url.Values{"scope": {qgisScopes}, "name": {"QGIS plugin"}, "site": {"*"}},
		map[string]string{"Authorization": "Bearer " + access})
	if r.Status != http.StatusCreated && r.Status != http.StatusOK {
		t.Fatalf("step 3: %d %s", r.Status, r.Body)
	}
	var tk struct {
		Key   string `json:"key"`
		Scope string `json:"scope"`
	}
	if err := json.Unmarshal(r.Body, &tk); err != nil || tk.Key == "" {
		t.Fatalf("step 3 answer %s", r.Body)
	}
	for _, sc := range strings.Fields(tk.Scope) {
		if strings.HasSuffix(sc, ":write") || sc == "repos:push" {
			t.Errorf("a key made with a read grant holds %s", sc)
		}
	}
	if !strings.Contains(tk.Scope, "layers:read") || !strings.Contains(tk.Scope, "tiles") {
		t.Errorf("key scope %q", tk.Scope)
	}
	me := e.Do(t, servertest.Request{Path: "/users/me/", Key: tk.Key})
	if me.Status != http.StatusOK {
		t.Fatalf("the key: %d %s", me.Status, me.Body)
	}
	if l := e.Do(t, servertest.Request{Path: "/layers/", Key: tk.Key}); l.Status != http.StatusOK {
		t.Errorf("layers with the key: %d %s", l.Status, l.Body)
	}
	return tk.Key
}
