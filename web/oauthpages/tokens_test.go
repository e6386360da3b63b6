package oauthpages_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// tokenAnswer is the RFC 6749 §5.1 answer.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

func oauthTokens(t *testing.T, e *servertest.Env, form url.Values, header map[string]string) tokenAnswer {
	t.Helper()
	r := oauthPost(t, e, "/o/token/", form, header)
	if r.Status != http.StatusOK {
		t.Fatalf("token request %v: %d %s", form, r.Status, r.Body)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("token answer Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	var out tokenAnswer
	r.JSON(t, &out)
	if out.AccessToken == "" || out.RefreshToken == "" || out.TokenType != "Bearer" || out.ExpiresIn <= 0 {
		t.Fatalf("token answer %s", r.Body)
	}
	return out
}

// Refresh tokens rotate: the old one dies, and replaying it revokes the
// whole family; revocation (RFC 7009) ends access and refresh tokens.
func TestOAuthRefreshRotationAndRevocation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		id, _ := oauthClient(t, e, admin, "public", "read")
		cfg := oauthConfig(e, id)
		b := oauthSignIn(t, e, e.NewUser(t, "Ann"))
		first := func() tokenAnswer {
			code, verifier := oauthCode(t, b, cfg)
			return oauthTokens(t, e, url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "code": {code},
				"code_verifier": {verifier}, "redirect_uri": {oauthRedirect}}, nil)
		}
		refresh := func(rt string) *servertest.Response {
			return oauthPost(t, e, "/o/token/", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {rt}}, nil)
		}

		t1 := first()
		t2 := oauthTokens(t, e, url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {t1.RefreshToken}}, nil)
		if t2.RefreshToken == t1.RefreshToken || t2.AccessToken == t1.AccessToken {
			t.Fatal("refresh did not rotate")
		}
		if r := oauthCall(t, e, t2.AccessToken, "/users/me/"); r.Status != http.StatusOK {
			t.Fatalf("refreshed access token: %d", r.Status)
		}
		// Replaying the rotated token: refused, and the family is revoked.
		if r := refresh(t1.RefreshToken); r.Status != http.StatusBadRequest || oauthErrorCode(t, r) != "invalid_grant" {
			t.Fatalf("replayed refresh token: %d %s", r.Status, r.Body)
		}
		if r := refresh(t2.RefreshToken); oauthErrorCode(t, r) != "invalid_grant" {
			t.Errorf("the family's newest refresh token after a replay: %d %s", r.Status, r.Body)
		}
		for _, at := range []string{t1.AccessToken, t2.AccessToken} {
			if r := oauthCall(t, e, at, "/users/me/"); r.Status != http.StatusUnauthorized {
				t.Errorf("access token of a revoked family: %d", r.Status)
			}
		}

		// Revoking an access token ends it alone.
		t3 := first()
		if r := oauthPost(t, e, "/o/revoke_token/", url.Values{"client_id": {id}, "token": {t3.AccessToken}, "token_type_hint": {"access_token"}}, nil); r.Status != http.StatusOK {
			t.Fatalf("revoking: %d %s", r.Status, r.Body)
		}
		if r := oauthCall(t, e, t3.AccessToken, "/users/me/"); r.Status != http.StatusUnauthorized {
			t.Errorf("revoked access token: %d", r.Status)
		}
		// Revoking the refresh token ends the grant.
		if r := oauthPost(t, e, "/o/revoke_token/", url.Values{"client_id": {id}, "token": {t3.RefreshToken}}, nil); r.Status != http.StatusOK {
			t.Fatalf("revoking: %d %s", r.Status, r.Body)
		}
		if r := refresh(t3.RefreshToken); r.Status != http.StatusBadRequest || oauthErrorCode(t, r) != "invalid_grant" {
			t.Errorf("revoked refresh token: %d %s", r.Status, r.Body)
		}
		// Unknown tokens: 200 all the same (RFC 7009 §2.2).
		if r := oauthPost(t, e, "/o/revoke_token/", url.Values{"client_id": {id}, "token": {"nothing-like-a-token"}}, nil); r.Status != http.StatusOK {
			t.Errorf("revoking an unknown token: %d %s", r.Status, r.Body)
		}
		// Errors of RFC 6749 §5.2.
		for name, c := range map[string]struct {
			form   url.Values
			status int
			code   string
		}{
			"unknown client": {url.Values{"grant_type": {"refresh_token"}, "client_id": {"nope"}, "refresh_token": {"x"}}, 401, "invalid_client"},
			"no grant type":  {url.Values{"client_id": {id}}, 400, "invalid_request"},
			"password grant": {url.Values{"grant_type": {"password"}, "client_id": {id}}, 400, "unsupported_grant_type"},
			"unknown code":   {url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "code": {"x"}}, 400, "invalid_grant"},
			"public secret":  {url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "client_secret": {"s"}, "refresh_token": {"x"}}, 401, "invalid_client"},
			"repeated param": {url.Values{"grant_type": {"refresh_token", "refresh_token"}, "client_id": {id}}, 400, "invalid_request"},
		} {
			r := oauthPost(t, e, "/o/token/", c.form, nil)
			if r.Status != c.status || oauthErrorCode(t, r) != c.code {
				t.Errorf("%s: %d %s, want %d %s", name, r.Status, r.Body, c.status, c.code)
			}
		}
	})
}

// A confidential client authenticates with HTTP Basic (or the form),
// and without its secret is invalid_client with a Basic challenge.
func TestOAuthConfidentialClient(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		id, secret := oauthClient(t, e, admin, "confidential", "read layers:write")
		if secret == "" {
			t.Fatal("confidential client without a secret")
		}
		cfg := oauthConfig(e, id)
		cfg.Scopes = []string{"layers:write", "read"}
		b := oauthSignIn(t, e, e.NewUser(t, "Ann"))
		code, verifier := oauthCode(t, b, cfg)
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {oauthRedirect}}
		wrong := map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":wrong"))}
		r := oauthPost(t, e, "/o/token/", form, wrong)
		if r.Status != http.StatusUnauthorized || oauthErrorCode(t, r) != "invalid_client" || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic") {
			t.Fatalf("wrong secret: %d %s %v", r.Status, r.Body, r.Header)
		}
		basic := map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))}
		got := oauthTokens(t, e, form, basic)
		if got.Scope != "layers:write read" {
			t.Errorf("scope %q", got.Scope)
		}
		resp := oauthCall(t, e, got.AccessToken, "/users/me/")
		if !strings.Contains(resp.Header.Get("OAuth-Scopes"), "layers:write") {
			t.Errorf("access token scopes %q", resp.Header.Get("OAuth-Scopes"))
		}
	})
}

// The metadata document has RFC 8414's fields.
func TestOAuthMetadata(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		r := e.Do(t, servertest.Request{Path: e.HTTP.URL + "/.well-known/oauth-authorization-server"})
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("metadata: %d %s", r.Status, r.Body)
		}
		var m map[string]any
		r.JSON(t, &m)
		want := map[string]any{
			"issuer":                 e.HTTP.URL,
			"authorization_endpoint": e.HTTP.URL + "/o/authorize/",
			"token_endpoint":         e.HTTP.URL + "/o/token/",
			"revocation_endpoint":    e.HTTP.URL + "/o/revoke_token/",
		}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s = %v, want %v", k, m[k], v)
			}
		}
		lists := map[string]string{
			"response_types_supported":              "code",
			"grant_types_supported":                 "authorization_code refresh_token",
			"code_challenge_methods_supported":      "S256",
			"response_modes_supported":              "query",
			"token_endpoint_auth_methods_supported": "client_secret_basic client_secret_post none",
		}
		for k, v := range lists {
			var got []string
			for _, x := range m[k].([]any) {
				got = append(got, x.(string))
			}
			if strings.Join(got, " ") != v {
				t.Errorf("%s = %v, want %s", k, got, v)
			}
		}
		if sc, _ := m["scopes_supported"].([]any); len(sc) == 0 || sc[0] != "read" {
			t.Errorf("scopes_supported %v", m["scopes_supported"])
		}
	})
}

// Deleting a user deletes the authorizations they gave and the refresh
// tokens under them: nothing of theirs is left to refresh.
func TestOAuthGrantsDieWithTheUser(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		ann := e.NewUser(t, "Ann")
		id, _ := oauthClient(t, e, admin, "public", "read")
		cfg := oauthConfig(e, id)
		code, verifier := oauthCode(t, oauthSignIn(t, e, ann), cfg)
		tok := oauthTokens(t, e, url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "code": {code},
			"code_verifier": {verifier}, "redirect_uri": {oauthRedirect}}, nil)
		if r := e.Do(t, servertest.Request{Method: http.MethodDelete, Path: "/users/" + itoa(ann.ID) + "/", Key: admin.Key}); r.Status != http.StatusNoContent && r.Status != http.StatusOK {
			t.Fatalf("deleting the user: %d %s", r.Status, r.Body)
		}
		ctx := t.Context()
		if n, m := e.Store.Client.OAuthGrant.Query().CountX(ctx), e.Store.Client.OAuthRefreshToken.Query().CountX(ctx); n != 0 || m != 0 {
			t.Errorf("%d grants and %d refresh tokens left of a deleted user", n, m)
		}
		r := oauthPost(t, e, "/o/token/", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {tok.RefreshToken}}, nil)
		if r.Status != http.StatusBadRequest || oauthErrorCode(t, r) != "invalid_grant" {
			t.Errorf("a deleted user's refresh token: %d %s", r.Status, r.Body)
		}
	})
}
