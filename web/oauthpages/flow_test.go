package oauthpages_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 29 acceptance: a public client completes the authorization code
// grant with PKCE (golang.org/x/oauth2 as the client), the user clicking
// Allow on the consent page, and calls REST and GraphQL with the token.
func TestOAuthPublicClientPKCEFlow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		ann := e.NewUser(t, "Ann")
		id, secret := oauthClient(t, e, admin, "public", "read")
		if secret != "" {
			t.Errorf("public client got a secret")
		}
		cfg := oauthConfig(e, id)
		verifier := oauth2.GenerateVerifier()
		authURL := cfg.AuthCodeURL("xyz", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("response_mode", "query"))

		// Without a session: to the sign-in page, coming back here.
		anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := anon.Get(authURL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		au, _ := url.Parse(authURL)
		if resp.StatusCode != http.StatusFound || loc.Path != "/signin/" || loc.Query().Get("next") != au.RequestURI() {
			t.Fatalf("anonymous authorize: %d to %s", resp.StatusCode, loc)
		}

		b := oauthSignIn(t, e, ann)
		to := oauthConsent(t, b, authURL, "allow", "QGIS Plugin", ann.Email, "Read, without changing anything")
		if to.Query().Get("state") != "xyz" || to.Host != "127.0.0.1:8989" {
			t.Fatalf("redirect %s", to)
		}
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, http.DefaultClient)
		tok, err := cfg.Exchange(ctx, to.Query().Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatalf("exchange: %v", err)
		}
		if tok.TokenType != "Bearer" || tok.RefreshToken == "" || tok.Extra("scope") != "read" || tok.ExpiresIn <= 0 {
			t.Errorf("token %+v scope %v", tok, tok.Extra("scope"))
		}
		me := oauthCall(t, e, tok.AccessToken, "/users/me/")
		if me.Status != http.StatusOK || !strings.Contains(string(me.Body), ann.Email) {
			t.Fatalf("REST with the access token: %d %s", me.Status, me.Body)
		}
		gq := e.Do(t, servertest.Request{Method: http.MethodPost, Path: e.HTTP.URL + "/graphql",
			Header: map[string]string{"Authorization": "Bearer " + tok.AccessToken}, Body: map[string]any{"query": "{ me { email } }"}})
		if gq.Status != http.StatusOK || !strings.Contains(string(gq.Body), ann.Email) {
			t.Fatalf("GraphQL with the access token: %d %s", gq.Status, gq.Body)
		}
		// read grants no write: creating a source needs sources:write.
		w := e.Do(t, servertest.Request{Method: http.MethodPost, Path: "/sources/", Body: map[string]any{"type": "upload"},
			Header: map[string]string{"Authorization": "Bearer " + tok.AccessToken}})
		if w.Status != http.StatusUnauthorized || !strings.Contains(string(w.Body), "sources:write") {
			t.Errorf("a write with a read token: %d %s", w.Status, w.Body)
		}

		// The code again: refused, and what it issued is revoked.
		_, err = cfg.Exchange(ctx, to.Query().Get("code"), oauth2.VerifierOption(verifier))
		if code := retrieveCode(err); code != "invalid_grant" {
			t.Fatalf("reused code: %v", err)
		}
		if r := oauthCall(t, e, tok.AccessToken, "/users/me/"); r.Status != http.StatusUnauthorized {
			t.Errorf("access token after its code was reused: %d", r.Status)
		}
		r := oauthPost(t, e, "/o/token/", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {tok.RefreshToken}}, nil)
		if r.Status != http.StatusBadRequest || oauthErrorCode(t, r) != "invalid_grant" {
			t.Errorf("refresh token after its code was reused: %d %s", r.Status, r.Body)
		}
	})
}

func retrieveCode(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}

// A wrong verifier, a missing one, plain PKCE, and a public client
// without PKCE are all refused.
func TestOAuthRefusesBadPKCE(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		id, _ := oauthClient(t, e, admin, "public", "read")
		cfg := oauthConfig(e, id)
		b := oauthSignIn(t, e, e.NewUser(t, "Ann"))
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, http.DefaultClient)

		code, _ := oauthCode(t, b, cfg)
		_, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
		if retrieveCode(err) != "invalid_grant" {
			t.Errorf("wrong verifier: %v", err)
		}
		code, _ = oauthCode(t, b, cfg)
		if _, err := cfg.Exchange(ctx, code); retrieveCode(err) != "invalid_grant" {
			t.Errorf("no verifier: %v", err)
		}
		// The redirect_uri must match the authorization request's.
		code, verifier := oauthCode(t, b, cfg)
		r := oauthPost(t, e, "/o/token/", url.Values{"grant_type": {"authorization_code"}, "client_id": {id},
			"code": {code}, "code_verifier": {verifier}, "redirect_uri": {"http://127.0.0.1:9999/"}}, nil)
		if r.Status != http.StatusBadRequest || oauthErrorCode(t, r) != "invalid_grant" {
			t.Errorf("other redirect_uri: %d %s", r.Status, r.Body)
		}

		// Errors of a request whose redirect URI is good go back to
		// the client.
		for name, q := range map[string]url.Values{
			"plain":         {"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"plain"}},
			"none":          {},
			"fragment mode": {"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}, "response_mode": {"fragment"}},
		} {
			q.Set("response_type", "code")
			q.Set("client_id", id)
			q.Set("redirect_uri", oauthRedirect)
			q.Set("state", "s")
			resp, err := b.Get(e.HTTP.URL + "/o/authorize/?" + q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			loc, _ := url.Parse(resp.Header.Get("Location"))
			if resp.StatusCode != http.StatusFound || loc.Host != "127.0.0.1:8989" || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("state") != "s" {
				t.Errorf("%s: %d %s", name, resp.StatusCode, loc)
			}
		}
		// An unknown scope: invalid_scope to the client.
		resp, err := b.Get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()), oauth2.SetAuthURLParam("scope", "layers:write")))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc, _ := url.Parse(resp.Header.Get("Location")); loc == nil || loc.Query().Get("error") != "invalid_scope" {
			t.Errorf("scope beyond the client's: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		// A redirect URI not registered: an error page, no redirect.
		resp, err = b.Get(e.HTTP.URL + "/o/authorize/?response_type=code&client_id=" + id + "&redirect_uri=https%3A%2F%2Fevil.example%2F")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
			t.Errorf("unregistered redirect: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		// Deny: access_denied to the client.
		to := oauthConsent(t, b, cfg.AuthCodeURL("d", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), "deny")
		if to.Query().Get("error") != "access_denied" || to.Query().Get("state") != "d" || to.Query().Get("code") != "" {
			t.Errorf("deny: %s", to)
		}
	})
}
