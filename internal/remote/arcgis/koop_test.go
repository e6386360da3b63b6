package arcgis_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/testtier"
)

// startKoop installs Koop with the project's script (cached after the
// first run) and starts it on 127.0.0.1 over the GeoJSON files in files
// (name without extension → content). It returns Koop's base URL.
func startKoop(t *testing.T, files map[string]any) string {
	t.Helper()
	testtier.FullOnly(t, "starts Koop, an ArcGIS REST server")
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal("node is missing; the ArcGIS tests run Koop")
		}
		t.Skip("node is missing; the ArcGIS tests run Koop")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "ensure-koop.sh")).Output()
	if err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatalf("scripts/ensure-koop.sh: %v", err)
		}
		t.Skipf("scripts/ensure-koop.sh could not install Koop: %v", err)
	}
	modules := filepath.Join(strings.TrimSpace(string(out)), "node_modules")
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o750); err != nil {
		t.Fatal(err)
	}
	for name, v := range files {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "data", name+".geojson"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("node", filepath.Join(root, "scripts", "koop", "server.js"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "SUPPRESS_NO_CONFIG_WARNING=1")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "LISTEN "); ok {
				port <- p
			}
		}
	}()
	select {
	case p := <-port:
		return "http://127.0.0.1:" + p
	case <-time.After(60 * time.Second):
		t.Fatal("Koop did not start within 60 s")
	}
	return ""
}

// service is one entry of the test's services directory. noPaging plays
// a server without pagination (ArcGIS Server before 10.3): its layers say
// supportsPagination false and its queries refuse resultOffset.
type service struct {
	folder, name, typ string
	noPaging          bool
}

// frontServer is the services directory Koop lacks: it lists services
// (root and folders) and passes every request about a service, MapServer
// or FeatureServer, to Koop's FeatureServer for the GeoJSON file of the
// service's base name. With token set, it also plays ArcGIS Server's
// token security: /rest/info names its token service, generateToken
// trades user "reader" and password "s3cret-pass" for a token, and every
// other request needs it.
func frontServer(t *testing.T, koop string, services []service, token bool) *httptest.Server {
	srv, _ := frontServerLog(t, koop, services, token)
	return srv
}

// frontServerLog is frontServer that also returns the log of the query
// requests it passed on ("<service path> <query>").
func frontServerLog(t *testing.T, koop string, services []service, token bool) (*httptest.Server, *queryLog) {
	t.Helper()
	ku, err := url.Parse(koop)
	if err != nil {
		t.Fatal(err)
	}
	var srv *httptest.Server
	log := &queryLog{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(ku)
		r.Out.URL.Path = r.In.Context().Value(koopPath{}).(string)
		r.Out.URL.RawPath = ""
		r.Out.Header.Del("Accept-Encoding")
	}, ModifyResponse: func(resp *http.Response) error {
		if resp.Request.Context().Value(noPaging{}) == nil || strings.HasSuffix(resp.Request.URL.Path, "/query") {
			return nil
		}
		var layer map[string]any
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || json.Unmarshal(b, &layer) != nil {
			return fmt.Errorf("layer JSON: %v", err)
		}
		if adv, ok := layer["advancedQueryCapabilities"].(map[string]any); ok {
			adv["supportsPagination"] = false
		}
		b, _ = json.Marshal(layer)
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}}
	const prefix = "/arcgis/rest/services"
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token {
			switch r.URL.Path {
			case "/arcgis/rest/info":
				writeJSON(w, map[string]any{"currentVersion": 11.2, "authInfo": map[string]any{
					"isTokenBasedSecurity": true, "tokenServicesUrl": srv.URL + "/arcgis/tokens/generateToken"}})
				return
			case "/arcgis/tokens/generateToken":
				if r.Method != http.MethodPost || r.PostFormValue("username") != "reader" || r.PostFormValue("password") != "s3cret-pass" {
					writeJSON(w, map[string]any{"error": map[string]any{"code": 400, "message": "Unable to generate token.", "details": []string{"Invalid username or password."}}})
					return
				}
				writeJSON(w, map[string]any{"token": "tok-123", "expires": time.Now().Add(time.Hour).UnixMilli()})
				return
			}
			if r.URL.Query().Get("token") != "tok-123" {
				writeJSON(w, map[string]any{"error": map[string]any{"code": 499, "message": "Token Required", "details": []string{}}})
				return
			}
		}
		rel, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		rel = strings.Trim(rel, "/")
		if rel == "" || !strings.Contains(rel, "Server") {
			var folders []string
			var list []map[string]string
			for _, s := range services {
				if s.folder == rel {
					list = append(list, map[string]string{"name": strings.TrimPrefix(s.folder+"/"+s.name, "/"), "type": s.typ})
				}
				if rel == "" && s.folder != "" && !contains(folders, s.folder) {
					folders = append(folders, s.folder)
				}
			}
			if rel != "" && len(list) == 0 {
				writeJSON(w, map[string]any{"error": map[string]any{"code": 404, "message": "Folder not found"}})
				return
			}
			writeJSON(w, map[string]any{"currentVersion": 11.2, "folders": folders, "services": list})
			return
		}
		for _, s := range services {
			full := strings.TrimPrefix(s.folder+"/"+s.name, "/") + "/" + s.typ
			if rest, ok := strings.CutPrefix(rel, full); ok {
				path := "/file-geojson/rest/services/" + s.name + "/FeatureServer" + rest
				if strings.HasSuffix(rest, "/query") {
					log.add(full + " " + r.URL.RawQuery)
				}
				ctx := context.WithValue(r.Context(), koopPath{}, path)
				if s.noPaging {
					if r.URL.Query().Has("resultOffset") {
						writeJSON(w, map[string]any{"error": map[string]any{"code": 400, "message": "Pagination is not supported."}})
						return
					}
					ctx = context.WithValue(ctx, noPaging{}, true)
				}
				proxy.ServeHTTP(w, r.WithContext(ctx))
				return
			}
		}
		writeJSON(w, map[string]any{"error": map[string]any{"code": 404, "message": "Service not found"}})
	})
	srv = httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, log
}

type queryLog struct {
	mu   sync.Mutex
	list []string
}

func (l *queryLog) add(s string) { l.mu.Lock(); l.list = append(l.list, s); l.mu.Unlock() }

// count is the number of logged queries holding all of parts.
func (l *queryLog) count(parts ...string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
next:
	for _, q := range l.list {
		for _, p := range parts {
			if !strings.Contains(q, p) {
				continue next
			}
		}
		n++
	}
	return n
}

type (
	koopPath struct{}
	noPaging struct{}
)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// loopback is a fetch client allowed to reach 127.0.0.1.
func loopback() *fetch.Client {
	return &fetch.Client{Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
}
