package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server/servertest"
)

// grantToken creates a token of u by the password grant with the given
// scope and expiry.
func grantToken(t *testing.T, e *env, u *user, scope string, expires time.Time) tokenRecord {
	t.Helper()
	return doJSON[tokenRecord](t, e, req{Method: "POST", Path: "/tokens", Body: map[string]any{
		"grant_type": "password", "username": u.Email, "password": servertest.Password,
		"scope": scope, "expires_at": expires.Format(time.RFC3339),
	}}, http.StatusCreated)
}

// putToken PUTs body to token id with key and expects status.
func putToken(t *testing.T, e *env, key string, id int, body map[string]any, status int) {
	t.Helper()
	r := e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/tokens/%d/", id), Key: key, Body: body,
		Header: map[string]string{"Referer": "https://maps.example.com/"}})
	expectStatus(t, r, status)
}

// getToken reads token id with the owner's full key.
func getToken(t *testing.T, e *env, key string, id int) tokenRecord {
	t.Helper()
	return doJSON[tokenRecord](t, e, req{Path: fmt.Sprintf("/tokens/%d/", id), Key: key}, http.StatusOK)
}

// Issue 11, defect 9: a token with tokens:write could clear its own
// expires_at and live for ever. A token may not make any token stronger
// (later expiry, wider scope, looser referrers) than that token is now and
// than the calling token is; a session may.
func TestTokenCannotOutliveItself(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		kim := e.NewUser(t, "Kim") // kim.Key: every scope, no expiry
		in := func(d time.Duration) time.Time { return time.Now().Add(d).UTC().Truncate(time.Second) }
		b := grantToken(t, e, kim, "tokens:read tokens:write users:read", in(time.Hour))
		bKey := *b.Key

		// Its own expiry: clearing or extending is 403 and changes nothing.
		putToken(t, e, bKey, b.ID, map[string]any{"expires_at": nil}, http.StatusForbidden)
		putToken(t, e, bKey, b.ID, map[string]any{"expires_at": in(2 * time.Hour).Format(time.RFC3339)}, http.StatusForbidden)
		if got := getToken(t, e, kim.Key, b.ID); got.ExpiresAt == nil || !got.ExpiresAt.Equal(*b.ExpiresAt) {
			t.Fatalf("expiry after refused PUTs = %v, want %v", got.ExpiresAt, b.ExpiresAt)
		}
		// Its own scope: widening is 403; narrowing and a PUT that sends
		// the token back unchanged are fine, as is shortening its life.
		putToken(t, e, bKey, b.ID, map[string]any{"scope": b.Scope + " users:write"}, http.StatusForbidden)
		putToken(t, e, bKey, b.ID, map[string]any{"name": "b", "scope": b.Scope, "expires_at": b.ExpiresAt}, http.StatusOK)
		soon := in(30 * time.Minute)
		putToken(t, e, bKey, b.ID, map[string]any{"expires_at": soon.Format(time.RFC3339)}, http.StatusOK)
		// Its own referrer rules: adding rules narrows; removing them is 403.
		putToken(t, e, bKey, b.ID, map[string]any{"referrers": []string{"*.example.com"}}, http.StatusOK)
		putToken(t, e, bKey, b.ID, map[string]any{"referrers": []string{}}, http.StatusForbidden)
		putToken(t, e, bKey, b.ID, map[string]any{"referrers": []string{"*.example.com", "*.example.org"}}, http.StatusForbidden)
		if got := getToken(t, e, kim.Key, b.ID); len(got.Referrers) != 1 || got.Scope != b.Scope {
			t.Fatalf("after refused PUTs %+v", got)
		}

		// A sibling may not be given more life or scope than the caller has.
		c := grantToken(t, e, kim, "query", in(10*time.Minute))
		putToken(t, e, bKey, c.ID, map[string]any{"expires_at": nil}, http.StatusForbidden)
		putToken(t, e, bKey, c.ID, map[string]any{"expires_at": in(2 * time.Hour).Format(time.RFC3339)}, http.StatusForbidden)
		putToken(t, e, bKey, c.ID, map[string]any{"scope": "query users:write"}, http.StatusForbidden)
		putToken(t, e, bKey, c.ID, map[string]any{"expires_at": in(20 * time.Minute).Format(time.RFC3339)}, http.StatusOK)
		putToken(t, e, bKey, c.ID, map[string]any{"scope": "query users:read"}, http.StatusOK)

		// The GraphQL mutation follows the same rule.
		var g servertest.GraphQLResponse
		e.Do(t, req{Method: "POST", Path: e.HTTP.URL + "/graphql", Key: bKey,
			Header: map[string]string{"Referer": "https://maps.example.com/"},
			Body: map[string]any{"query": `mutation($id: ID!) { updateToken(id: $id, input: {clearExpiresAt: true}) { id expiresAt } }`,
				"variables": map[string]any{"id": b.ID}}}).JSON(t, &g)
		if len(g.Errors) != 1 || g.Errors[0].Code() != "FORBIDDEN" {
			t.Fatalf("GraphQL clearExpiresAt by the token itself: %s", mustJSON(g))
		}
		if got := getToken(t, e, kim.Key, b.ID); got.ExpiresAt == nil || !got.ExpiresAt.Equal(soon) {
			t.Fatalf("expiry after GraphQL = %v, want %v", got.ExpiresAt, soon)
		}

		// A token that itself never expires may remove a sibling's expiry.
		putToken(t, e, kim.Key, b.ID, map[string]any{"expires_at": nil}, http.StatusOK)

		// A site administrator's token does not reach other users' tokens.
		admin := e.NewUser(t, "Ada", servertest.SiteAdmin)
		putToken(t, e, admin.Key, c.ID, map[string]any{"expires_at": nil}, http.StatusNotFound)
		if got := getToken(t, e, kim.Key, c.ID); got.ExpiresAt == nil {
			t.Fatal("an administrator's token cleared another user's token's expiry")
		}

		// A session (a person who signed in with the password) may.
		br := newBrowser(t)
		status, body, _ := br.do("POST", e.API+"/session/", fmt.Sprintf(`{"email":%q,"password":%q}`, kim.Email, servertest.Password), false)
		if status != http.StatusOK {
			t.Fatalf("sign-in: %d %s", status, body)
		}
		var s struct {
			CSRFToken string `json:"csrf_token"`
		}
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			t.Fatal(err)
		}
		br.csrf = s.CSRFToken
		status, body, _ = br.do("PUT", fmt.Sprintf("%s/tokens/%d/", e.API, c.ID), `{"expires_at": null, "scope": "query users:write"}`, true)
		if status != http.StatusOK {
			t.Fatalf("session PUT: %d %s", status, body)
		}
		if got := getToken(t, e, kim.Key, c.ID); got.ExpiresAt != nil || got.Scope != "query users:write" {
			t.Fatalf("after session PUT %+v", got)
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
