// Package servertest runs the whole Geopub HTTP service in process for
// tests: the real router, resolvers and store behind an httptest server,
// with helpers to create users and tokens and to call REST and GraphQL.
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/users"
	"github.com/geopub/geopub/internal/vectortiles"
	"github.com/geopub/geopub/queryapi"
)

// Env is one running service.
type Env struct {
	Store  *store.Store
	Server *server.Server
	HTTP   *httptest.Server
	// API is the REST base, .../services/api/v1.x
	API string
	seq atomic.Int64
}

// New starts the service over st; it stops when the test ends.
// QueryFresh is how long test servers' point queries reuse layer
// descriptions and access decisions.
const QueryFresh = 20 * time.Millisecond

func New(t testing.TB, st *store.Store) *Env {
	t.Helper()
	return NewWith(t, st, nil)
}

// NewWith is New with the test's changes to the service's configuration
// (limits, timeouts, workers), made by tune after the defaults are set.
func NewWith(t testing.TB, st *store.Store, tune func(*server.Config)) *Env {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	ctx := context.Background()
	if _, err := jobs.MigrateRiver(ctx, st); err != nil {
		t.Fatalf("servertest: migrating River: %v", err)
	}
	cfg := server.Config{
		Logger: logger,
		// Test servers for remote sources listen on loopback: allow it.
		FetchAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		DataDir:    t.TempDir(),
		// Point queries see permission changes within QueryFresh.
		Query: queryapi.Config{Fresh: QueryFresh},
		Tiles: vectortiles.Config{Fresh: QueryFresh},
		Jobs: jobs.Config{
			Workers: 2, FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
			StopTimeout: 5 * time.Second, Retry: jobs.Backoff{Base: 100 * time.Millisecond, Max: time.Second},
		},
		// Views and downloads are written when a test calls
		// Resolver.Popularity.Flush (and at Stop), never behind the back
		// of a test that compares tables before and after a call.
		PopularityFlushEvery: -1,
		// Usage figures alike: written by Resolver.Usage.Flush and at Stop.
		UsageFlushEvery: -1,
	}
	if tune != nil {
		tune(&cfg)
	}
	srv, err := server.NewWithStore(ctx, cfg, st)
	if err != nil {
		t.Fatalf("servertest: %v", err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("servertest: starting: %v", err)
	}
	// Connections as geopub serve makes them (onewrite.Serve).
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Listener = onewrite.Listen(hs.Listener)
	hs.Config.ConnContext = onewrite.ConnContext
	hs.Start()
	t.Cleanup(hs.Close)
	// Cleanups run last first: workers and the hub stop (ending open
	// subscriptions), then the HTTP server closes.
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Errorf("servertest: stopping: %v", err)
		}
		srv.Resolver.Blobs.Close()
	})
	return &Env{Store: st, Server: srv, HTTP: hs, API: hs.URL + "/services/api/v1.x"}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Password is the password of every user the helpers create.
const Password = "correct horse battery"

// User is a test user with a token holding every scope.
type User struct {
	*ent.User
	Key string
}

// UserOption adjusts a new user.
type UserOption func(*users.New)

// SiteAdmin makes the user a site administrator.
func SiteAdmin(n *users.New) { n.SiteAdmin = true }

// NewUser creates a user and a token with every known scope.
func (e *Env) NewUser(t testing.TB, name string, opts ...UserOption) *User {
	t.Helper()
	n := users.New{
		Email:     fmt.Sprintf("%s.%d@example.com", strings.ToLower(name), e.seq.Add(1)),
		Password:  Password,
		FirstName: name,
		LastName:  "Tester",
		Country:   "NZ",
	}
	for _, o := range opts {
		o(&n)
	}
	u, err := users.Create(context.Background(), e.Store.Client, n)
	if err != nil {
		t.Fatalf("creating user %s: %v", name, err)
	}
	return &User{User: u, Key: e.Token(t, u, strings.Join(auth.KnownScopes, " "))}
}

// Token creates a token of u with the given scopes and returns its key.
func (e *Env) Token(t testing.TB, u *ent.User, scope string) string {
	t.Helper()
	_, key, err := e.Server.Resolver.Auth.CreateToken(context.Background(), u, auth.TokenSpec{Name: "test", Scope: scope})
	if err != nil {
		t.Fatalf("creating token: %v", err)
	}
	return key
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %q: %v", r.Body, err)
	}
}

// Detail returns the body's detail message.
func (r *Response) Detail(t testing.TB) string {
	t.Helper()
	var b struct {
		Detail string `json:"detail"`
	}
	r.JSON(t, &b)
	return b.Detail
}

// Request describes a call; Key authenticates with `Authorization: key`.
type Request struct {
	Method string
	// Path is relative to the API base unless it starts with http.
	Path   string
	Key    string
	Body   any
	Header map[string]string
}

// Do performs a request against the REST API.
func (e *Env) Do(t testing.TB, req Request) *Response {
	t.Helper()
	var body io.Reader
	switch b := req.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(buf)
	}
	url := req.Path
	if !strings.HasPrefix(url, "http") {
		url = e.API + req.Path
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Key != "" {
		hr.Header.Set("Authorization", "key "+req.Key)
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// GraphQLError is one error of a GraphQL response.
type GraphQLError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// Code is the error's extensions.code.
func (g GraphQLError) Code() string { s, _ := g.Extensions["code"].(string); return s }

// GraphQLResponse is a decoded GraphQL response.
type GraphQLResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []GraphQLError  `json:"errors"`
}

// GraphQL posts an operation to /graphql with the given key (or none).
func (e *Env) GraphQL(t testing.TB, key, query string, vars map[string]any) *GraphQLResponse {
	t.Helper()
	r := e.Do(t, Request{Method: http.MethodPost, Path: e.HTTP.URL + "/graphql", Key: key,
		Body: map[string]any{"query": query, "variables": vars}})
	var out GraphQLResponse
	r.JSON(t, &out)
	return &out
}

// SeedGroups creates n groups named prefix000, prefix001, ... in bulk, with
// member holding perm in each, and returns them.
func (e *Env) SeedGroups(t testing.TB, prefix string, n int, member *ent.User, perm groupmembership.Permission) []*ent.Group {
	t.Helper()
	ctx := context.Background()
	creates := make([]*ent.GroupCreate, n)
	for i := range creates {
		name := fmt.Sprintf("%s%03d", prefix, i)
		creates[i] = e.Store.Client.Group.Create().SetName(name).SetURLSlug(strings.ToLower(name)).SetCountry("NZ")
	}
	groups := e.Store.Client.Group.CreateBulk(creates...).SaveX(ctx)
	ms := make([]*ent.GroupMembershipCreate, 0, n)
	for _, g := range groups {
		ms = append(ms, e.Store.Client.GroupMembership.Create().SetGroupID(g.ID).SetUserID(member.ID).SetPermission(perm))
	}
	e.Store.Client.GroupMembership.CreateBulk(ms...).ExecX(ctx)
	return groups
}
