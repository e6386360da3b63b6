package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/store"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func runCmd(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("geopub %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// Issue acceptance, on a fresh data directory: user create --site-admin,
// tokens by form and JSON (201, 32-character key), GET /tokens without
// keys, a query-only token refused on /users/ with 401 naming users:read,
// and Accepted-OAuth-Scopes on every response.
func TestServeOnFreshDataDirectory(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--data-dir", dir, "--database-url", ""}, io.Discard, io.Discard)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v", err)
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("service not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	id := strings.TrimSpace(runCmd(t, "user", "create", "--data-dir", dir, "--database-url", "",
		"--email", "Admin@Example.com", "--password", "correct horse battery", "--first-name", "Ada", "--site-admin"))
	if id == "" {
		t.Fatal("user create printed no id")
	}

	api := base + "/services/api/v1.x"
	check := func(resp *http.Response) []byte {
		t.Helper()
		defer resp.Body.Close()
		if resp.Header.Get("Accepted-OAuth-Scopes") == "" {
			t.Fatalf("%s %s: no Accepted-OAuth-Scopes", resp.Request.Method, resp.Request.URL)
		}
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	var tok struct {
		Key string `json:"key"`
	}
	resp, err := http.PostForm(api+"/tokens", url.Values{"grant_type": {"password"}, "username": {"admin@example.com"},
		"password": {"correct horse battery"}, "scope": {"query"}})
	if err != nil {
		t.Fatal(err)
	}
	body := check(resp)
	json.Unmarshal(body, &tok)
	if resp.StatusCode != 201 || len(tok.Key) != 32 {
		t.Fatalf("form grant: %d %s", resp.StatusCode, body)
	}
	queryKey := tok.Key

	resp, err = http.Post(api+"/tokens/", "application/json", strings.NewReader(
		`{"grant_type": "password", "username": "admin@example.com", "password": "correct horse battery", "name": "full", "scope": "users:read tokens:read"}`))
	if err != nil {
		t.Fatal(err)
	}
	body = check(resp)
	json.Unmarshal(body, &tok)
	if resp.StatusCode != 201 || len(tok.Key) != 32 || tok.Key == queryKey {
		t.Fatalf("JSON grant: %d %s", resp.StatusCode, body)
	}

	get := func(path, key string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", api+path, nil)
		req.Header.Set("Authorization", "key "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, check(resp)
	}
	resp, body = get("/tokens", tok.Key)
	if resp.StatusCode != 200 || bytes.Contains(body, []byte(`"key"`)) || bytes.Contains(body, []byte(queryKey)) {
		t.Fatalf("GET /tokens: %d %s", resp.StatusCode, body)
	}
	resp, body = get("/users/", queryKey)
	if resp.StatusCode != 401 || !bytes.Contains(body, []byte("users:read")) {
		t.Fatalf("query-scoped GET /users/: %d %s", resp.StatusCode, body)
	}
	resp, body = get("/users/", tok.Key)
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"admin@example.com"`)) || !bytes.Contains(body, []byte(fmt.Sprintf(`"id":%s`, id))) {
		t.Fatalf("GET /users/: %d %s", resp.StatusCode, body)
	}
	resp, body = get("/groups/", tok.Key)
	if resp.StatusCode != 200 || resp.Header.Get("X-Resource-Range") != "0-2/2" {
		t.Fatalf("GET /groups/: %d %s %v", resp.StatusCode, body, resp.Header)
	}
	for _, path := range []string{"/healthz", "/graphiql", "/services/api/v1/nothing-here"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if path != "/services/api/v1/nothing-here" && resp.StatusCode != 200 {
			t.Fatalf("%s = %d", path, resp.StatusCode)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"frobnicate"}, {"user", "delete"}, {"user", "create", "--email", "x@example.com"}, {"serve", "--bogus"},
		{"search"}, {"search", "drop"}, {"search", "reindex", "--bogus"},
		{"serve", "--secret-key", "c2hvcnQ="}, {"worker", "--secret-key", "not base64!"}} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if _, ok := err.(usageError); !ok {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "--data-dir", t.TempDir(), "--database-url", ""}, &out, io.Discard); err != nil ||
		!strings.Contains(out.String(), "applied") {
		t.Fatalf("migrate: %v %q", err, out.String())
	}
}

// geopub search reindex rebuilds the index of a database written before
// any feed (here by the store's own client, no server running) and says
// how many docs it wrote.
func TestSearchReindex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.OpenAndMigrate(ctx, store.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	u := st.Client.User.Create().SetEmail("cli@example.com").SetPasswordHash("x").SaveX(ctx)
	l := st.Client.Layer.Create().SetType(layer.TypeTable).SetName("Codes").SetUserID(u.ID).SaveX(ctx)
	st.Client.LayerVersion.Create().SetLayerID(l.ID).SetName("Codes").SetCreatedBy(u.ID).SetDatasourceIds([]int{}).ExecX(ctx)
	st.Close()

	var out bytes.Buffer
	if err := run(ctx, []string{"search", "reindex", "--data-dir", dir, "--database-url", ""}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "search index rebuilt: 1 docs") {
		t.Fatalf("stdout %q", out.String())
	}
	st, err = store.Open(ctx, store.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var title, state string
	if err := st.DB.QueryRowContext(ctx, "SELECT title, state FROM search_docs WHERE doc_type = 'table' AND doc_id = ?", l.ID).Scan(&title, &state); err != nil {
		t.Fatal(err)
	}
	if title != "Codes" || state != "latest" {
		t.Fatalf("indexed %q %q", title, state)
	}
}
