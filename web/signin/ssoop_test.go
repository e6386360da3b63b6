package signin_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"golang.org/x/text/language"
)

// ssoOPPassword is the password of every account at the test provider.
const ssoOPPassword = "op-password-1"

// ssoOP is zitadel's OpenID-certified provider (pkg/op, with its example
// storage and login form) on 127.0.0.1: the real provider the sign-in
// tests talk to.
type ssoOP struct {
	Issuer string
	users  ssoOPUsers
	mu     sync.Mutex
	groups map[string][]string // user id -> the groups claim
}

// ssoOPUsers is the provider's accounts, by id.
type ssoOPUsers map[string]*storage.User

func (u ssoOPUsers) GetUserByID(id string) *storage.User { return u[id] }
func (u ssoOPUsers) GetUserByUsername(name string) *storage.User {
	for _, x := range u {
		if x.Username == name {
			return x
		}
	}
	return nil
}
func (u ssoOPUsers) ExampleClientID() string { return "service" }

// ssoGroupsStorage adds the "groups" claim to the provider's UserInfo
// answers, as providers with a groups scope or mapper do.
type ssoGroupsStorage struct {
	*storage.Storage
	op *ssoOP
}

func (s ssoGroupsStorage) SetUserinfoFromToken(ctx context.Context, info *oidc.UserInfo, tokenID, subject, origin string) error {
	if err := s.Storage.SetUserinfoFromToken(ctx, info, tokenID, subject, origin); err != nil {
		return err
	}
	s.op.mu.Lock()
	defer s.op.mu.Unlock()
	if g, ok := s.op.groups[info.Subject]; ok {
		info.AppendClaims("groups", g)
	}
	return nil
}

// ssoStartOP starts the provider with the given accounts and one
// confidential web client, clientID/secret, whose redirect URI is
// redirect(); redirect is called when the provider starts serving, so
// the test may start Geopub (which needs the issuer) in between: the
// provider answers 503 until ready is called.
func ssoStartOP(t *testing.T, users ssoOPUsers, clientID, secret string) (op *ssoOP, ready func(redirectURI string)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	op = &ssoOP{Issuer: "http://" + ln.Addr().String(), users: users, groups: map[string][]string{}}
	var handler http.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
	})
	var mu sync.RWMutex
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.RLock()
		h := handler
		mu.RUnlock()
		h.ServeHTTP(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return op, func(redirectURI string) {
		clients := map[string]*storage.Client{clientID: storage.WebClient(clientID, secret, redirectURI)}
		st := ssoGroupsStorage{Storage: storage.NewStorageWithClients(users, clients), op: op}
		h := exampleop.SetupServer(op.Issuer, st, nil, false)
		mu.Lock()
		handler = h
		mu.Unlock()
	}
}

// SetGroups sets the groups claim of the account with id.
func (op *ssoOP) SetGroups(id string, groups ...string) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.groups[id] = groups
}

// ssoOPUser is an account at the test provider.
func ssoOPUser(id, username, email string, verified bool) *storage.User {
	return &storage.User{ID: id, Username: username, Password: ssoOPPassword, FirstName: "Ada", LastName: "Lovelace " + id,
		Email: email, EmailVerified: verified, PreferredLanguage: language.English}
}
