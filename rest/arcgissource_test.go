package rest_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/testtier"
)

// arcgisServer runs Koop (scripts/ensure-koop.sh) on 127.0.0.1 over n
// towns, ten a page, behind a services directory listing one
// FeatureServer service; write rewrites the towns.
func arcgisServer(t *testing.T) (string, func(n int)) {
	t.Helper()
	testtier.FullOnly(t, "starts Koop, an ArcGIS REST server")
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal("node is missing; the ArcGIS tests run Koop")
		}
		t.Skip("node is missing; the ArcGIS tests run Koop")
	}
	root, _ := filepath.Abs("..")
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "ensure-koop.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/ensure-koop.sh: %v", err)
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "data"), 0o750)
	write := func(n int) {
		var feats []string
		for i := 0; i < n; i++ {
			feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{"id":%d,"name":"Town %d"},"geometry":{"type":"Point","coordinates":[%f,%f]}}`,
				i+1, i, 170+float64(i)*0.01, -40-float64(i)*0.01))
		}
		body := `{"type":"FeatureCollection","metadata":{"name":"Towns","maxRecordCount":10,"idField":"id"},"features":[` + strings.Join(feats, ",") + `]}`
		if err := os.WriteFile(filepath.Join(dir, "data", "towns.geojson"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(25)
	cmd := exec.Command("node", filepath.Join(root, "scripts", "koop", "server.js"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(strings.TrimSpace(string(out)), "node_modules"), "SUPPRESS_NO_CONFIG_WARNING=1")
	stdout, _ := cmd.StdoutPipe()
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
	var koop *url.URL
	select {
	case p := <-port:
		koop, _ = url.Parse("http://127.0.0.1:" + p)
	case <-time.After(60 * time.Second):
		t.Fatal("Koop did not start")
	}
	proxy := httputil.NewSingleHostReverseProxy(koop)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel := strings.TrimPrefix(r.URL.Path, "/arcgis/rest/services")
		if rel == "" || rel == "/" {
			w.Write([]byte(`{"currentVersion":11.2,"folders":[],"services":[{"name":"towns","type":"FeatureServer"}]}`))
			return
		}
		r.URL.Path = "/file-geojson/rest/services" + rel
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/arcgis/rest/services", write
}

// An ArcGIS source end to end: create, scan, the layer as a datasource, a
// layer imported over three pages, a re-scan counting a change.
func TestArcGISSourceEndToEnd(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u, write := arcgisServer(t)
		pub := e.NewUser(t, "Publisher")
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "arcgis", "title": "Towns ArcGIS", "url_remote": u}})
		expectStatus(t, r, http.StatusCreated)
		var src sourceRecord
		r.JSON(t, &src)
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" || sc.ChangeCounts["added"] != 1 {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		d, ok := ds["towns/FeatureServer/0"]
		if !ok || d.NumFeatures != 25 || d.GeometryType != "point" || d.CRS == nil || *d.CRS != "EPSG:4326" {
			t.Fatalf("datasources %+v", ds)
		}
		r = e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Towns", "data": map[string]any{"datasources": []int{d.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		if l = waitVersion(t, e, pub.Key, l.ThisVersion); l.Version.Status != "ok" || l.Data.FeatureCount != 25 || l.Data.GeometryType != "point" {
			t.Fatalf("layer %+v", l)
		}
		write(27)
		r = e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		if sc = waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" || sc.ChangeCounts["updated"] != 1 {
			t.Fatalf("re-scan %+v", sc)
		}
	})
}
