package oauthpages_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Site administrators register, change and delete clients through REST
// and GraphQL; others may not; bad registrations are 400 naming the
// field; deleting a client ends its tokens.
func TestOAuthClientManagement(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		ann := e.NewUser(t, "Ann")
		good := map[string]any{"name": "App", "client_type": "public", "redirect_uris": []string{"https://app.example/cb"}}
		if r := e.Do(t, servertest.Request{Method: http.MethodPost, Path: "/oauth-clients/", Key: ann.Key, Body: good}); r.Status != http.StatusForbidden {
			t.Errorf("a user registering a client: %d %s", r.Status, r.Body)
		}
		if r := e.Do(t, servertest.Request{Method: http.MethodPost, Path: "/oauth-clients/", Body: good}); r.Status != http.StatusUnauthorized {
			t.Errorf("anonymous registering a client: %d %s", r.Status, r.Body)
		}
		for name, body := range map[string]map[string]any{
			"http redirect": {"name": "A", "redirect_uris": []string{"http://app.example/cb"}},
			"fragment":      {"name": "A", "redirect_uris": []string{"https://app.example/cb#x"}},
			"relative":      {"name": "A", "redirect_uris": []string{"/cb"}},
			"no redirect":   {"name": "A", "redirect_uris": []string{}},
			"no name":       {"redirect_uris": []string{"https://app.example/cb"}},
			"unknown scope": {"name": "A", "redirect_uris": []string{"https://app.example/cb"}, "scope": "admin"},
			"unknown type":  {"name": "A", "redirect_uris": []string{"https://app.example/cb"}, "client_type": "secret"},
		} {
			r := e.Do(t, servertest.Request{Method: http.MethodPost, Path: "/oauth-clients/", Key: admin.Key, Body: body})
			field := map[string]string{"no name": "name", "unknown scope": "scope", "unknown type": "client_type"}[name]
			if field == "" {
				field = "redirect_uris"
			}
			var fe map[string][]string
			if r.Status != http.StatusBadRequest || json.Unmarshal(r.Body, &fe) != nil || len(fe[field]) == 0 {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		list := e.Do(t, servertest.Request{Path: "/oauth-clients/", Key: admin.Key})
		if list.Status != http.StatusOK || strings.TrimSpace(string(list.Body)) != "[]" {
			t.Fatalf("refused registrations left rows: %d %s", list.Status, list.Body)
		}

		id, _ := oauthClient(t, e, admin, "public", "read")
		var listed []struct {
			ID       int    `json:"id"`
			ClientID string `json:"client_id"`
			Secret   string `json:"client_secret"`
		}
		e.Do(t, servertest.Request{Path: "/oauth-clients/", Key: admin.Key}).JSON(t, &listed)
		if len(listed) != 1 || listed[0].ClientID != id || listed[0].Secret != "" {
			t.Fatalf("listed %+v", listed)
		}
		if r := e.Do(t, servertest.Request{Path: "/oauth-clients/", Key: ann.Key}); r.Status != http.StatusForbidden {
			t.Errorf("a user listing clients: %d", r.Status)
		}
		path := "/oauth-clients/" + itoa(listed[0].ID) + "/"
		put := e.Do(t, servertest.Request{Method: http.MethodPut, Path: path, Key: admin.Key, Body: map[string]any{"name": "Renamed"}})
		if put.Status != http.StatusOK || !strings.Contains(string(put.Body), `"Renamed"`) {
			t.Errorf("rename: %d %s", put.Status, put.Body)
		}

		// GraphQL reads the same registry.
		gq := e.GraphQL(t, admin.Key, `{ oauthClients { clientId name confidential redirectUris scope } }`, nil)
		if len(gq.Errors) > 0 || !strings.Contains(string(gq.Data), id) || !strings.Contains(string(gq.Data), "Renamed") {
			t.Errorf("GraphQL oauthClients: %s %+v", gq.Data, gq.Errors)
		}
		if gq := e.GraphQL(t, ann.Key, `{ oauthClients { clientId } }`, nil); len(gq.Errors) == 0 {
			t.Errorf("GraphQL oauthClients for a user: %s", gq.Data)
		}
		created := e.GraphQL(t, admin.Key, `mutation { createOAuthClient(input: {name: "Web", confidential: true, redirectUris: ["https://web.example/cb"]}) { client { id clientId confidential } clientSecret } }`, nil)
		var c struct {
			CreateOAuthClient struct {
				Client struct {
					ID           string `json:"id"`
					Confidential bool   `json:"confidential"`
				} `json:"client"`
				ClientSecret string `json:"clientSecret"`
			} `json:"createOAuthClient"`
		}
		if err := json.Unmarshal(created.Data, &c); err != nil || len(created.Errors) > 0 || c.CreateOAuthClient.ClientSecret == "" || !c.CreateOAuthClient.Client.Confidential {
			t.Fatalf("GraphQL createOAuthClient: %s %+v", created.Data, created.Errors)
		}
		if del := e.GraphQL(t, admin.Key, `mutation($id: ID!) { deleteOAuthClient(id: $id) }`, map[string]any{"id": c.CreateOAuthClient.Client.ID}); len(del.Errors) > 0 {
			t.Errorf("GraphQL deleteOAuthClient: %+v", del.Errors)
		}

		// Deleting a client ends the tokens issued to it.
		cfg := oauthConfig(e, id)
		b := oauthSignIn(t, e, ann)
		code, verifier := oauthCode(t, b, cfg)
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, http.DefaultClient)
		tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatal(err)
		}
		if r := e.Do(t, servertest.Request{Method: http.MethodDelete, Path: path, Key: admin.Key}); r.Status != http.StatusNoContent {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if r := oauthCall(t, e, tok.AccessToken, "/users/me/"); r.Status != http.StatusUnauthorized {
			t.Errorf("a deleted client's access token: %d", r.Status)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
