package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	_ "modernc.org/sqlite"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/store/storetest"
)

// gqlServer serves the schema behind the auth middleware, as the binary
// does, over a fresh in-memory database.
type gqlServer struct {
	t      *testing.T
	client *ent.Client
	h      http.Handler
}

func newGQLServer(t *testing.T) *gqlServer {
	st := storetest.Open(t, dialect.SQLite, storetest.Options{})
	client := st.Client
	svc := auth.NewService(client, st, auth.Config{})
	srv := handler.New(NewSchema(&Resolver{Client: client, Auth: svc}))
	srv.AddTransport(transport.POST{})
	return &gqlServer{t: t, client: client, h: svc.Middleware(srv)}
}

func (g *gqlServer) user(email, password string) *ent.User {
	g.t.Helper()
	hash, err := auth.HashPassword(password)
	if err != nil {
		g.t.Fatal(err)
	}
	return g.client.User.Create().SetEmail(email).SetPasswordHash(hash).SaveX(context.Background())
}

// gqlResult is a decoded GraphQL response.
type gqlResult struct {
	Data   map[string]json.RawMessage
	Errors []struct{ Message string }
	rec    *httptest.ResponseRecorder
}

// do posts one operation with the given extra headers.
func (g *gqlServer) do(query string, vars map[string]any, headers map[string]string) gqlResult {
	g.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	g.h.ServeHTTP(rec, req)
	res := gqlResult{rec: rec}
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
			g.t.Fatalf("response %s: %v", rec.Body, err)
		}
	}
	return res
}

func (r gqlResult) errMsg() string {
	if len(r.Errors) == 0 {
		return ""
	}
	return r.Errors[0].Message
}

const (
	loginOp       = `mutation($e: String!, $p: String!) { login(email: $e, password: $p) { user { email } csrfToken expiresAt } }`
	createTokenOp = `mutation($in: CreateTokenInput!) { createToken(input: $in) { key token { id keyHint scope referrers } } }`
	tokensOp      = `{ tokens { id name keyHint scope } }`
	tokenOp       = `query($id: ID!) { token(id: $id) { id name } }`
	updateTokenOp = `mutation($id: ID!, $in: UpdateTokenInput!) { updateToken(id: $id, input: $in) { id name scope } }`
	deleteTokenOp = `mutation($id: ID!) { deleteToken(id: $id) }`
	logoutOp      = `mutation { logout }`
)

func TestLoginLogout(t *testing.T) {
	g := newGQLServer(t)
	g.user("max@example.com", "max-password")

	if res := g.do(loginOp, map[string]any{"e": "max@example.com", "p": "wrong-password"}, nil); res.errMsg() != "Invalid username or password." {
		t.Fatalf("wrong password: %+v", res)
	}
	res := g.do(loginOp, map[string]any{"e": "MAX@example.com", "p": "max-password"}, nil)
	var login struct {
		User      struct{ Email string }
		CsrfToken string
	}
	if err := json.Unmarshal(res.Data["login"], &login); err != nil || login.User.Email != "max@example.com" || login.CsrfToken == "" {
		t.Fatalf("login: %+v %v", res, err)
	}
	var session string
	for _, c := range res.rec.Result().Cookies() {
		if c.Name == auth.SessionCookie {
			session = c.Value
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
				t.Errorf("session cookie %+v", c)
			}
		}
	}
	if session == "" {
		t.Fatalf("no session cookie: %v", res.rec.Header())
	}
	cookie := map[string]string{"Cookie": auth.SessionCookie + "=" + session}
	if res := g.do(tokensOp, nil, cookie); res.rec.Code != http.StatusForbidden {
		t.Errorf("POST with session but no CSRF header: %d", res.rec.Code)
	}
	withCSRF := map[string]string{"Cookie": cookie["Cookie"], auth.CSRFHeader: login.CsrfToken}
	if res := g.do(tokensOp, nil, withCSRF); res.errMsg() != "" {
		t.Errorf("tokens with session: %+v", res)
	}
	if res := g.do(logoutOp, nil, withCSRF); string(res.Data["logout"]) != "true" {
		t.Errorf("logout: %+v", res)
	}
	// The session is gone: the same cookie is now anonymous.
	if res := g.do(tokensOp, nil, withCSRF); res.errMsg() != "Authentication credentials were not provided." {
		t.Errorf("after logout: %+v", res)
	}
	if res := g.do(logoutOp, nil, nil); string(res.Data["logout"]) != "false" {
		t.Errorf("anonymous logout: %+v", res)
	}
}

func TestTokenResolvers(t *testing.T) {
	g := newGQLServer(t)
	g.user("ned@example.com", "ned-password")
	g.user("ola@example.com", "ola-password")
	create := func(user, password, scope string) (key, id string) {
		t.Helper()
		in := map[string]any{"username": user, "password": password, "name": scope, "scope": scope}
		res := g.do(createTokenOp, map[string]any{"in": in}, nil)
		var out struct {
			Key   string
			Token struct{ ID, KeyHint string }
		}
		if err := json.Unmarshal(res.Data["createToken"], &out); err != nil || len(out.Key) != 32 {
			t.Fatalf("createToken: %+v %v", res, err)
		}
		return out.Key, out.Token.ID
	}
	readKey, readID := create("ned@example.com", "ned-password", "tokens:read")
	writeKey, writeID := create("ned@example.com", "ned-password", "tokens:read tokens:write")
	queryKey, _ := create("ned@example.com", "ned-password", "query")
	_, olaID := create("ola@example.com", "ola-password", "")
	as := func(key string) map[string]string { return map[string]string{"Authorization": "key " + key} }

	if res := g.do(createTokenOp, map[string]any{"in": map[string]any{
		"username": "ned@example.com", "password": "nope-nope"}}, nil); res.errMsg() != "Invalid username or password." {
		t.Errorf("createToken with a wrong password: %+v", res)
	}
	tests := []struct {
		name, key, op string
		vars          map[string]any
		wantErr       string // "" for success
		want          string // a substring of the data, on success
	}{
		{"list newest first", readKey, tokensOp, nil, "", `"name":"query"`},
		{"list needs tokens:read", queryKey, tokensOp, nil, "The token lacks the required scope: tokens:read.", ""},
		{"list anonymous", "", tokensOp, nil, "Authentication credentials were not provided.", ""},
		{"own token", readKey, tokenOp, map[string]any{"id": writeID}, "", `"name":"tokens:read tokens:write"`},
		{"other's token is not found", readKey, tokenOp, map[string]any{"id": olaID}, "Not found.", ""},
		{"update needs tokens:write", readKey, updateTokenOp,
			map[string]any{"id": readID, "in": map[string]any{"name": "x"}}, "The token lacks the required scope: tokens:write.", ""},
		{"update own", writeKey, updateTokenOp,
			map[string]any{"id": readID, "in": map[string]any{"name": "renamed", "scope": "tokens:read"}}, "", `"name":"renamed"`},
		{"update cannot escalate", writeKey, updateTokenOp,
			map[string]any{"id": readID, "in": map[string]any{"scope": "users:write"}}, "A token cannot grant scopes it does not hold itself.", ""},
		{"update other's", writeKey, updateTokenOp,
			map[string]any{"id": olaID, "in": map[string]any{"name": "mine"}}, "Not found.", ""},
		{"update bad referrer", writeKey, updateTokenOp,
			map[string]any{"id": readID, "in": map[string]any{"referrers": []string{"https://x.com"}}}, "referrers:", ""},
		{"delete other's", writeKey, deleteTokenOp, map[string]any{"id": olaID}, "Not found.", ""},
		{"delete needs tokens:write", readKey, deleteTokenOp, map[string]any{"id": readID}, "The token lacks the required scope: tokens:write.", ""},
		{"delete own", writeKey, deleteTokenOp, map[string]any{"id": readID}, "", "true"},
		{"deleted token no longer works", readKey, tokensOp, nil, "http 401", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers map[string]string
			if tt.key != "" {
				headers = as(tt.key)
			}
			res := g.do(tt.op, tt.vars, headers)
			got := res.errMsg()
			if res.rec.Code != http.StatusOK {
				got = "http " + res.rec.Result().Status[:3]
			}
			if tt.wantErr != "" {
				if !strings.HasPrefix(got, tt.wantErr) {
					t.Fatalf("error %q, want %q", got, tt.wantErr)
				}
				return
			}
			data, _ := json.Marshal(res.Data)
			if got != "" || !strings.Contains(string(data), tt.want) {
				t.Fatalf("result %s, error %q; want data containing %s", data, got, tt.want)
			}
		})
	}
}
