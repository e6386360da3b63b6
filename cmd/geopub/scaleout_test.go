package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/remote/s3source/s3test"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/testtier"
)

// The scale-out test of issue 24 (points 21-24): two `geopub serve`
// replicas and one `geopub worker` on one PostgreSQL and one S3 bucket
// (versitygw with its metadata store), behind HAProxy with the 50 s
// client and server timeouts common in front of web services.

// scaleIdle is how long the idle streams wait: past the proxy's 50 s.
const scaleIdle = 55 * time.Second

// scalePoints is how many points the imported file holds: about 21 MiB,
// past the 16 MiB threshold of the S3 transfer manager gocloud's s3blob
// writes with (8 MiB parts), so its upload is a multipart upload of 3
// parts.
const scalePoints = 170_000

// haproxyCfg is the proxy: a round-robin backend of the two replicas,
// health-checked on /readyz. Test clients name the client address they
// stand for (X-Test-Client, which becomes X-Forwarded-For as a proxy in
// front would have sent it; option forwardfor then appends the real
// peer, 127.0.0.1, trusted too), the scheme and host a TLS front end
// would have forwarded (X-Test-Proto, X-Test-Host), and may pin a
// replica (X-Test-Server; ignored while it is down). The response names
// the replica that served it (X-Served-By).
const haproxyCfg = `global
	maxconn 256

defaults
	mode http
	option forwardfor
	option redispatch 1
	retries 3
	timeout connect 5s
	timeout client 50s
	timeout server 50s
	timeout check 5s

frontend fe
	bind %s
	http-request del-header X-Forwarded-For
	http-request del-header X-Forwarded-Proto
	http-request del-header X-Forwarded-Host
	http-request set-header X-Forwarded-For %%[req.hdr(X-Test-Client)] if { req.hdr(X-Test-Client) -m found }
	http-request set-header X-Forwarded-Proto %%[req.hdr(X-Test-Proto)] if { req.hdr(X-Test-Proto) -m found }
	http-request set-header X-Forwarded-Host %%[req.hdr(X-Test-Host)] if { req.hdr(X-Test-Host) -m found }
	default_backend replicas

backend replicas
	balance roundrobin
	option httpchk GET /readyz
	default-server inter 500ms fall 3 rise 2
	use-server r1 if { req.hdr(X-Test-Server) -m str r1 }
	use-server r2 if { req.hdr(X-Test-Server) -m str r2 }
	http-response set-header X-Served-By %%[srv_name]
	server r1 %s check
	server r2 %s check
`

// startHAProxy runs HAProxy in the foreground on cfg until the test ends.
func startHAProxy(t *testing.T, listen, r1, r2 string) *process {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if _, e := os.Stat("/usr/sbin/haproxy"); e == nil {
			bin, err = "/usr/sbin/haproxy", nil
		}
	}
	if err != nil {
		msg := "haproxy is not installed (bash scripts/ensure-deps.sh test installs it)"
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" || os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, haproxyCfg, listen, r1, r2), 0o644); err != nil {
		t.Fatal(err)
	}
	return startCmd(t, exec.Command(bin, "-db", "-f", cfg))
}

// scaleCluster is what the subtests share.
type scaleCluster struct {
	proxy    string // http://host:port of HAProxy
	replicas map[string]string
	procs    map[string]*process
	hub      *notify.Hub
	keys     map[string]string // user e-mail → token key (through the proxy)
	ids      map[string]int    // user e-mail → user id
	dir      string
	dbURL    string
}

func TestScaleOut(t *testing.T) {
	testtier.FullOnly(t, "starts PostgreSQL-backed processes, versitygw and HAProxy and idles past a 50 s proxy timeout")
	start := time.Now()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	dbURL := storetest.ScratchPostgres(t)
	accessLog := filepath.Join(t.TempDir(), "s3-access.log")
	s3 := s3test.StartWith(t, s3test.Options{Metadata: true, AccessLog: accessLog})
	s3.CreateBucket(t, "geopub")
	blobURL := "s3://geopub?endpoint=" + url.QueryEscape(s3.Endpoint) + "&region=us-east-1&use_path_style=true" +
		"&request_checksum_calculation=when_required&response_checksum_validation=when_required"
	env := []string{"AWS_ACCESS_KEY_ID=" + s3test.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s3test.SecretKey,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_REGION=us-east-1"}
	dir := t.TempDir()
	runCmd(t, "migrate", "--data-dir", dir, "--database-url", dbURL)

	c := &scaleCluster{replicas: map[string]string{}, procs: map[string]*process{}, keys: map[string]string{},
		ids: map[string]int{}, dir: dir, dbURL: dbURL}
	for _, name := range []string{"r1", "r2"} {
		addr := freeAddr(t)
		c.procs[name] = startProcessEnv(t, env, "serve", "--addr", addr, "--data-dir", dir, "--database-url", dbURL,
			"--workers", "0", "--blob-url", blobURL, "--trusted-proxies", "127.0.0.1/32")
		c.replicas[name] = "http://" + addr
	}
	worker := startProcessEnv(t, env, "worker", "--data-dir", dir, "--database-url", dbURL, "--blob-url", blobURL, "--stop-timeout", "2s")
	for name, base := range c.replicas {
		waitReady(t, c.procs[name], base)
	}
	listen := freeAddr(t)
	c.proxy = "http://" + listen
	hap := startHAProxy(t, listen, strings.TrimPrefix(c.replicas["r1"], "http://"), strings.TrimPrefix(c.replicas["r2"], "http://"))
	// Ready through the proxy once both replicas have passed their checks.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		seen := map[string]bool{}
		for range 4 {
			if resp, err := http.Get(c.proxy + "/readyz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					seen[resp.Header.Get("X-Served-By")] = true
				}
			}
		}
		if seen["r1"] && seen["r2"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy does not reach both replicas (%v)\n%s", seen, tail(hap.Logs()))
		}
	}

	st, err := store.Open(context.Background(), store.Config{DataDir: dir, DatabaseURL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c.hub = notify.New(st, slog.New(slog.DiscardHandler))

	// One user per check, so that one's notifications and failed
	// sign-ins do not reach another's.
	for _, email := range []string{"import@example.com", "idle@example.com", "resume@example.com", "guessed@example.com"} {
		id, err := strconv.Atoi(strings.TrimSpace(runCmd(t, "user", "create", "--data-dir", dir, "--database-url", dbURL,
			"--email", email, "--password", "correct horse battery")))
		if err != nil {
			t.Fatal(err)
		}
		c.ids[email] = id
		a := &api{t: t, base: c.proxy + "/services/api/v1.x"}
		var tok struct{ Key string }
		a.postJSON("/tokens/", map[string]any{"grant_type": "password", "username": email, "password": "correct horse battery",
			"name": "scale", "scope": "query layers:read layers:write sources:read sources:write wxs:wfs tokens:read tokens:write notifications:read users:read"}, &tok)
		c.keys[email] = tok.Key
	}
	t.Logf("cluster up in %s", time.Since(start).Round(time.Millisecond))

	t.Run("checks", func(t *testing.T) {
		t.Run("idle streams outlive the proxy timeout", func(t *testing.T) {
			t.Parallel()
			c.idleStreams(t)
		})
		t.Run("one after another", func(t *testing.T) {
			t.Parallel()
			t.Run("forwarded client addresses and links", c.forwarded)
			t.Run("multipart upload imported by the worker", func(t *testing.T) { c.importThroughS3(t, accessLog, worker) })
			t.Run("revocation reaches the other replica", c.revocation)
			t.Run("SSE resumes after the replica is killed", c.killUnderStream)
		})
	})
	t.Logf("scale-out test took %s", time.Since(start).Round(time.Millisecond))
}

// request makes a request of base (the proxy or a replica) with extra
// headers.
func (c *scaleCluster) request(t *testing.T, method, base, path, key string, body io.Reader, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "key "+key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// Point 21: behind the trusted proxy each client is the address the
// proxy names, so one client's wrong passwords hold back that client
// only; links follow the scheme and host the proxy forwarded, with no
// --base-url.
func (c *scaleCluster) forwarded(t *testing.T) {
	const email = "guessed@example.com"
	signIn := func(client, password string) (*http.Response, []byte) {
		b, _ := json.Marshal(map[string]string{"email": email, "password": password})
		return c.request(t, http.MethodPost, c.proxy, "/services/api/v1.x/session/", "", bytes.NewReader(b),
			map[string]string{"Content-Type": "application/json", "X-Test-Client": client})
	}
	held, served := 0, map[string]bool{}
	for i := range 30 {
		resp, _ := signIn("198.51.100.1", "wrong password")
		served[resp.Header.Get("X-Served-By")] = true
		if resp.StatusCode == http.StatusTooManyRequests {
			held = i + 1
			if resp.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			break
		}
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a wrong password: %d", resp.StatusCode)
		}
	}
	if held == 0 {
		t.Fatal("30 wrong passwords from one client through the proxy were never held back")
	}
	if resp, b := signIn("198.51.100.1", "correct horse battery"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the guessing client with the right password: %d %s, want 429 (held back)", resp.StatusCode, b)
	}
	if resp, b := signIn("198.51.100.2", "correct horse battery"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the owner from another client behind the same proxy: %d %s, want 200", resp.StatusCode, b)
	}
	t.Logf("the guessing client was held back at its attempt %d, across replicas %v; the other client signed in", held, served)

	key := c.keys["import@example.com"]
	resp, b := c.request(t, http.MethodGet, c.proxy, "/services/api/v1.x/users/me/", key, nil,
		map[string]string{"X-Test-Proto": "https", "X-Test-Host": "data.example.com"})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"https://data.example.com/services/api/`) ||
		strings.Contains(string(b), "127.0.0.1") {
		t.Fatalf("links behind the proxy: %d %.400s, want https://data.example.com/...", resp.StatusCode, b)
	}
	resp, b = c.request(t, http.MethodGet, c.proxy, "/services/api/v1.x/users/me/", key, nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"`+c.proxy+`/services/api/`) {
		t.Fatalf("links through the proxy without forwarded scheme and host: %d %.400s, want %s/...", resp.StatusCode, b, c.proxy)
	}
}

// The upload (through the proxy, to S3 in several parts) is scanned and
// imported by the worker; both replicas then serve the data.
func (c *scaleCluster) importThroughS3(t *testing.T, accessLog string, worker *process) {
	file := filepath.Join(t.TempDir(), "points.geojsons")
	writePoints(t, file, scalePoints)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	a := &api{t: t, base: c.proxy + "/services/api/v1.x", key: c.keys["import@example.com"]}
	began := time.Now()
	srcID := a.uploadFile(file)
	uploaded := time.Since(began)
	var dsID int
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var scans []struct{ Status string }
		a.do("GET", fmt.Sprintf("/sources/%d/scans/", srcID), "", nil, &scans)
		if len(scans) > 0 && scans[0].Status != "queued" && scans[0].Status != "scanning" {
			if scans[0].Status != "completed" {
				t.Fatalf("scan %+v\n%s", scans[0], tail(worker.Logs()))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scan did not end\n%s", tail(worker.Logs()))
		}
	}
	var ds []struct {
		ID          int   `json:"id"`
		NumFeatures int64 `json:"num_features"`
	}
	a.do("GET", fmt.Sprintf("/sources/%d/datasources/", srcID), "", nil, &ds)
	if len(ds) != 1 || ds[0].NumFeatures != scalePoints {
		t.Fatalf("datasources %+v", ds)
	}
	dsID = ds[0].ID
	var l crashVersion
	a.postJSON("/layers/", map[string]any{"name": "Scale-out points", "data": map[string]any{"datasources": []int{dsID}}}, &l)
	pubURL := a.postJSON(l.ThisVersion+"publish/", nil, nil).Get("Location")
	if pubURL == "" {
		t.Fatal("publish: no Location")
	}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var g struct{ State, Error string }
		a.do("GET", pubURL, "", nil, &g)
		if g.State == "completed" {
			break
		}
		if g.State != "publishing" {
			t.Fatalf("publish %+v\n%s", g, tail(worker.Logs()))
		}
		if time.Now().After(deadline) {
			t.Fatalf("publish still %q\n%s", g.State, tail(worker.Logs()))
		}
	}
	imported := time.Since(began)

	// Every part of the upload went to the bucket as a multipart upload.
	logb, err := os.ReadFile(accessLog)
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]int{}
	for _, f := range strings.Fields(string(logb)) {
		if strings.HasPrefix(f, "s3_") {
			actions[f]++
		}
	}
	parts := actions["s3_UploadPart"]
	if actions["s3_CreateMultipartUpload"] == 0 || actions["s3_CompleteMultipartUpload"] == 0 || parts < 2 {
		t.Fatalf("no multipart upload of the %d-byte file in the S3 access log: %v", fi.Size(), actions)
	}

	for _, name := range []string{"r1", "r2"} {
		ra := &api{t: t, base: c.replicas[name] + "/services/api/v1.x", key: a.key}
		var v crashVersion
		ra.do("GET", l.ThisVersion, "", nil, &v)
		if v.Version.Status != "ok" || v.Data.FeatureCount != scalePoints || v.PublishedVersion == nil {
			t.Fatalf("%s: version %+v", name, v)
		}
		resp, b := c.request(t, http.MethodGet, c.replicas[name], fmt.Sprintf("/services/ogc/features/collections/layer-%d/items?limit=2", l.ID), a.key, nil, nil)
		var fc struct {
			Features []struct {
				Properties struct{ Name string }
			}
			NumberMatched int64 `json:"numberMatched"`
		}
		if err := json.Unmarshal(b, &fc); resp.StatusCode != http.StatusOK || err != nil || len(fc.Features) != 2 ||
			!strings.HasPrefix(fc.Features[0].Properties.Name, "Point ") {
			t.Fatalf("%s: items %d %.400s", name, resp.StatusCode, b)
		}
	}
	t.Logf("%d-byte upload through the proxy in %s as a multipart upload (%d parts in the S3 log); scanned, imported and published by the worker %s after the upload began; readable from both replicas",
		fi.Size(), uploaded.Round(time.Millisecond), parts, imported.Round(time.Millisecond))
}

// Point 24: a token deleted through one replica is refused by the other
// replica's next requests well inside the second for which each
// replica remembers a checked key.
func (c *scaleCluster) revocation(t *testing.T) {
	owner := &api{t: t, base: c.proxy + "/services/api/v1.x", key: c.keys["import@example.com"]}
	collections := func(name, key string) int {
		resp, _ := c.request(t, http.MethodGet, c.replicas[name], "/services/ogc/features/collections", key, nil, nil)
		return resp.StatusCode
	}
	for attempt := 1; ; attempt++ {
		var tok struct {
			ID  int
			Key string
		}
		owner.postJSON("/tokens/", map[string]any{"name": "revoked", "scope": "query layers:read wxs:wfs"}, &tok)
		// Each replica checks and remembers the live key now.
		primed := time.Now()
		for _, name := range []string{"r1", "r2"} {
			if s := collections(name, tok.Key); s != http.StatusOK {
				t.Fatalf("%s with the live key: %d", name, s)
			}
		}
		resp, b := c.request(t, http.MethodDelete, c.proxy, fmt.Sprintf("/services/api/v1.x/tokens/%d/", tok.ID), owner.key, nil, nil)
		if resp.StatusCode >= 300 {
			t.Fatalf("deleting the token: %d %s", resp.StatusCode, b)
		}
		deleted := time.Now()
		through := resp.Header.Get("X-Served-By")
		other := map[string]string{"r1": "r2", "r2": "r1"}[through]
		if other == "" {
			t.Fatalf("the delete was served by %q", through)
		}
		took := map[string]time.Duration{}
		for _, name := range []string{other, through} {
			for collections(name, tok.Key) != http.StatusUnauthorized {
				if time.Since(deleted) > 10*time.Second {
					t.Fatalf("the deleted key still works on %s after 10 s", name)
				}
				time.Sleep(5 * time.Millisecond)
			}
			took[name] = time.Since(deleted)
		}
		// The replicas remember a checked key for a second: refused
		// before that second ended, the change reached them.
		if time.Since(primed) < time.Second || took[other] < 500*time.Millisecond {
			t.Logf("deleted through %s; refused by %s %s and by %s %s after the delete",
				through, other, took[other].Round(time.Millisecond), through, took[through].Round(time.Millisecond))
			return
		}
		if attempt == 3 {
			t.Fatalf("the deleted key worked on %s for %s after the delete (the key cache alone keeps it 1 s)", other, took[other])
		}
		t.Logf("attempt %d inconclusive on a slow machine: refused %s after the delete, %s after the key was remembered",
			attempt, took[other], time.Since(primed))
	}
}

// sseEvent is one server-sent event, or a comment.
type sseEvent = servertest.SSEEvent

// sseConn is an open server-sent event stream.
type sseConn struct {
	resp   *http.Response
	cancel context.CancelFunc
	events chan sseEvent // closed at the end of the stream
}

func (s *sseConn) Close() { s.cancel(); s.resp.Body.Close() }

const notificationsQuery = `subscription($after: ID) { notifications(after: $after) { id kind } }`

// openNotifications subscribes through the proxy over SSE, as
// EventSource does: after is the variable (from the start, no gap),
// lastEventID the header of a reconnection.
func (c *scaleCluster) openNotifications(key, pin, after, lastEventID string) (*sseConn, error) {
	q := url.Values{"query": {notificationsQuery}}
	if after != "" {
		q.Set("variables", `{"after": "`+after+`"}`)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.proxy+"/graphql?"+q.Encode(), nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "key "+key)
	if pin != "" {
		req.Header.Set("X-Test-Server", pin)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("SSE answered %d %s %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	s := &sseConn{resp: resp, cancel: cancel, events: make(chan sseEvent, 1000)}
	go servertest.ReadSSE(resp.Body, s.events)
	return s, nil
}

// notification decodes a "next" event's notification.
func notification(ev sseEvent) (id, kind string, err error) {
	var out struct {
		Data struct {
			Notifications struct{ ID, Kind string }
		}
		Errors []any
	}
	if err := json.Unmarshal([]byte(ev.Data), &out); err != nil || len(out.Errors) > 0 || out.Data.Notifications.ID == "" {
		return "", "", fmt.Errorf("SSE event %+v: %v", ev, err)
	}
	return out.Data.Notifications.ID, out.Data.Notifications.Kind, nil
}

// Point 22: an SSE stream and a graphql-transport-ws subscription, both
// through the proxy, stay open idle past its 50 s timeouts (their
// heartbeats keep them alive) and then still deliver.
func (c *scaleCluster) idleStreams(t *testing.T) {
	const email = "idle@example.com"
	key := c.keys[email]
	// Both on r2: the other subtests kill r1.
	sse, err := c.openNotifications(key, "r2", "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer sse.Close()
	if by := sse.resp.Header.Get("X-Served-By"); by != "r2" {
		t.Fatalf("the SSE stream is on %q, want r2", by)
	}

	ctx, cancel := context.WithTimeout(context.Background(), scaleIdle+60*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.proxy, "http")+"/graphql", &websocket.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: http.Header{"X-Test-Server": {"r2"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if by := resp.Header.Get("X-Served-By"); by != "r2" {
		t.Fatalf("the websocket is on %q, want r2", by)
	}
	if err := wsjson.Write(ctx, ws, map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "key " + key}}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := wsjson.Read(ctx, ws, &m); err != nil || m["type"] != "connection_ack" {
		t.Fatalf("connection_init answered %v %v", m, err)
	}
	if err := wsjson.Write(ctx, ws, map[string]any{"type": "subscribe", "id": "1",
		"payload": map[string]any{"query": notificationsQuery}}); err != nil {
		t.Fatal(err)
	}

	// Both read until the notification sent after the idle wait.
	opened := time.Now()
	type result struct {
		stream string
		beats  int
		kind   string
		after  time.Duration
		err    error
	}
	results := make(chan result, 2)
	go func() {
		r := result{stream: "sse"}
		defer func() { results <- r }()
		for ev := range sse.events {
			if ev.Comment != "" {
				if strings.TrimSpace(ev.Comment) == ": ping" {
					r.beats++
				}
				continue
			}
			if ev.Event != "next" {
				r.err = fmt.Errorf("SSE event %+v while idle", ev)
				return
			}
			_, r.kind, r.err = notification(ev)
			r.after = time.Since(opened)
			return
		}
		r.err = fmt.Errorf("the SSE stream ended after %s", time.Since(opened).Round(time.Millisecond))
	}()
	go func() {
		r := result{stream: "graphql-transport-ws"}
		defer func() { results <- r }()
		for {
			var m map[string]any
			if err := wsjson.Read(ctx, ws, &m); err != nil {
				r.err = fmt.Errorf("the websocket ended after %s: %v", time.Since(opened).Round(time.Millisecond), err)
				return
			}
			switch m["type"] {
			case "ping":
				r.beats++
				if err := wsjson.Write(ctx, ws, map[string]any{"type": "pong"}); err != nil {
					r.err = err
					return
				}
			case "pong":
			case "next":
				b, _ := json.Marshal(m["payload"])
				var out struct {
					Data struct{ Notifications struct{ Kind string } }
				}
				r.err = json.Unmarshal(b, &out)
				r.kind, r.after = out.Data.Notifications.Kind, time.Since(opened)
				return
			default:
				r.err = fmt.Errorf("websocket message %v while idle", m)
				return
			}
		}
	}()

	idle := time.NewTimer(scaleIdle)
	defer idle.Stop()
	var got []result
	select {
	case r := <-results:
		t.Fatalf("%s before the idle wait ended: %+v", r.stream, r)
	case <-idle.C:
	}
	if _, err := c.hub.Publish(context.Background(), nil, c.ids[email], "scale.after_idle", map[string]any{"idle_s": scaleIdle.Seconds()}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case r := <-results:
			got = append(got, r)
		case <-time.After(30 * time.Second):
			t.Fatalf("no notification 30 s after the idle wait (got %+v)", got)
		}
	}
	for _, r := range got {
		if r.err != nil || r.kind != "scale.after_idle" {
			t.Fatalf("%s: %+v", r.stream, r)
		}
		if r.beats < 2 {
			t.Errorf("%s: %d heartbeats in %s idle", r.stream, r.beats, scaleIdle)
		}
		t.Logf("%s through the proxy (timeouts 50 s): idle %s with %d heartbeats, then delivered the notification %s after opening",
			r.stream, scaleIdle, r.beats, r.after.Round(time.Millisecond))
	}
}

// Point 23: an SSE client reads notifications through the proxy; the
// replica serving it is SIGKILLed while they are produced; the client
// reconnects through the proxy with Last-Event-ID and, in the end, has
// every notification produced, once, in order.
func (c *scaleCluster) killUnderStream(t *testing.T) {
	const email, total, killAt = "resume@example.com", 60, 15
	key := c.keys[email]
	s, err := c.openNotifications(key, "r1", "0", "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	victim := s.resp.Header.Get("X-Served-By")
	if c.procs[victim] == nil {
		t.Fatalf("the stream is on %q", victim)
	}

	var mu sync.Mutex
	var produced []string
	prodErr := make(chan error, 1)
	go func() {
		for i := range total {
			n, err := c.hub.Publish(context.Background(), nil, c.ids[email], "scale.resume", map[string]any{"i": i})
			if err != nil {
				prodErr <- err
				return
			}
			mu.Lock()
			produced = append(produced, strconv.Itoa(n.ID))
			mu.Unlock()
			time.Sleep(50 * time.Millisecond) // a steady producer
		}
		prodErr <- nil
	}()

	var received []string
	seen := map[string]int{}
	last := ""
	var killed, lastBefore, firstAfter time.Time
	reconnects := 0
	deadline := time.Now().Add(60 * time.Second)
	producerDone := false
	for len(seen) < total || !producerDone {
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s: %d of %d notifications received, %d reconnects\n%s", len(seen), total, reconnects, tail(c.procs[victim].Logs()))
		}
		select {
		case err := <-prodErr:
			if err != nil {
				t.Fatal(err)
			}
			producerDone = true
			continue
		case ev, ok := <-s.events:
			if !ok {
				// The stream ended: reconnect through the proxy, as
				// EventSource does, with the last id seen.
				s.Close()
				for {
					if s, err = c.openNotifications(key, "", "", last); err == nil {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("no reconnection within 60 s: %v", err)
					}
					time.Sleep(100 * time.Millisecond)
				}
				reconnects++
				if by := s.resp.Header.Get("X-Served-By"); by == victim {
					t.Fatalf("reconnected to the killed replica %s", by)
				}
				continue
			}
			if ev.Comment != "" {
				continue
			}
			id, kind, err := notification(ev)
			if err != nil || kind != "scale.resume" {
				t.Fatalf("event %+v: %v", ev, err)
			}
			if ev.ID != id {
				t.Fatalf("event id %q for notification %s", ev.ID, id)
			}
			if reconnects > 0 && firstAfter.IsZero() {
				firstAfter = time.Now()
			}
			seen[id]++
			received = append(received, id)
			last = id
			if len(received) == killAt {
				lastBefore = time.Now()
				c.procs[victim].kill(t)
				killed = time.Now()
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
	if killed.IsZero() || reconnects == 0 {
		t.Fatalf("no kill under the stream (killed %v, %d reconnects)", killed, reconnects)
	}
	mu.Lock()
	defer mu.Unlock()
	dups := 0
	for _, n := range seen {
		dups += n - 1
	}
	lost := 0
	for _, id := range produced {
		if seen[id] == 0 {
			lost++
		}
	}
	inOrder := true
	for i := 1; i < len(received); i++ {
		a, _ := strconv.Atoi(received[i-1])
		b, _ := strconv.Atoi(received[i])
		if b <= a {
			inOrder = false
		}
	}
	if lost != 0 || dups != 0 || len(seen) != len(produced) || !inOrder {
		t.Fatalf("produced %d, received %d distinct (%d lost, %d duplicated, in order %v): %v vs %v",
			len(produced), len(seen), lost, dups, inOrder, produced, received)
	}
	t.Logf("%s SIGKILLed under the stream after %d of %d notifications; %d reconnect(s) through the proxy with Last-Event-ID; gap from the last event before the kill to the first after the reconnection %s (%s from the kill); produced %d, received %d, lost 0, duplicated 0",
		victim, killAt, total, reconnects, firstAfter.Sub(lastBefore).Round(time.Millisecond), firstAfter.Sub(killed).Round(time.Millisecond),
		len(produced), len(seen))
}
