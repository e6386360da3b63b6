package rest_test

import (
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/testtier"
)

const wfsSourcePassword = "wfs-Secret-2b81"

// wfsServer serves one layer of n towns through MapServer's CGI on
// 127.0.0.1, ten features a page, asking for basic-auth credentials; write
// rewrites the towns.
func wfsServer(t *testing.T) (url string, write func(n int)) {
	t.Helper()
	testtier.FullOnly(t, "starts MapServer")
	const mapserv = "/usr/lib/cgi-bin/mapserv"
	if _, err := exec.LookPath(mapserv); err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal("MapServer is missing: bash scripts/ensure-deps.sh test")
		}
		t.Skip("MapServer is missing: bash scripts/ensure-deps.sh test")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "towns.geojson")
	write = func(n int) {
		var feats []string
		for i := 0; i < n; i++ {
			feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{"id":%d,"name":"Town %d"},"geometry":{"type":"Point","coordinates":[%f,%f]}}`,
				i+1, i, 170+float64(i)*0.01, -40-float64(i)*0.01))
		}
		if err := os.WriteFile(data, []byte(`{"type":"FeatureCollection","features":[`+strings.Join(feats, ",")+`]}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(25)
	conf, mapfile := filepath.Join(dir, "ms.conf"), filepath.Join(dir, "wfs.map")
	os.WriteFile(conf, []byte("CONFIG\nEND\n"), 0o600)
	os.WriteFile(mapfile, []byte(`MAP
  NAME "t"
  EXTENT 160 -50 180 -30
  PROJECTION "+proj=longlat +datum=WGS84 +no_defs" END
  OUTPUTFORMAT
    NAME "geojson"
    DRIVER "OGR/GEOJSON"
    MIMETYPE "application/json; subtype=geojson"
    FORMATOPTION "STORAGE=stream"
    FORMATOPTION "FORM=SIMPLE"
  END
  WEB
    METADATA
      "wfs_title" "t"
      "wfs_onlineresource" "http://127.0.0.1/"
      "wfs_srs" "EPSG:4326"
      "wfs_enable_request" "*"
      "wfs_maxfeatures" "10"
      "wfs_compute_number_matched" "true"
      "wfs_getfeature_formatlist" "gml3,geojson"
    END
  END
  LAYER
    NAME "towns"
    TYPE POINT
    CONNECTIONTYPE OGR
    CONNECTION "`+data+`"
    PROJECTION "+proj=longlat +datum=WGS84 +no_defs" END
    METADATA
      "wfs_title" "Towns"
      "gml_include_items" "all"
      "gml_types" "auto"
      "gml_featureid" "id"
    END
  END
END
`), 0o600)
	h := &cgi.Handler{Path: mapserv, Env: []string{"MAPSERVER_CONFIG_FILE=" + conf, "MS_MAPFILE=" + mapfile}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "reader" || p != wfsSourcePassword {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/wfs", write
}

// A WFS source end to end: create, scan, the feature type as a
// datasource, a layer imported over three pages (its progress announced
// page by page while they are fetched), a re-scan counting a change, and
// a wrong password failing the scan without showing it.
func TestWFSSourceEndToEnd(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.ImportProgressEvery = time.Millisecond }, func(t *testing.T, e *env) {
		url, write := wfsServer(t)
		pub := e.NewUser(t, "Publisher")
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "wfs", "title": "Towns WFS", "url_remote": url,
			"options": map[string]any{"username": "reader", "password": wfsSourcePassword}}})
		expectStatus(t, r, http.StatusCreated)
		var src sourceRecord
		r.JSON(t, &src)
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" || sc.ChangeCounts["added"] != 1 {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		d, ok := ds["ms:towns"]
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
		// Fetching the 25 features is the first half of the import: each
		// of the three pages moves the progress before any row is written.
		var fetching []float64
		for _, n := range allNotifications(t, e, pub.Key) {
			p, _ := n.Payload["progress"].(float64)
			if n.Kind == "import.progress" && n.Payload["version_id"] == float64(l.Version.ID) && p > 0 && p <= 0.5 {
				if len(fetching) > 0 && p <= fetching[len(fetching)-1] {
					t.Fatalf("progress went %v then %v", fetching, p)
				}
				fetching = append(fetching, p)
			}
		}
		if len(fetching) < 2 {
			t.Fatalf("progress while fetching %v: want it to move page by page", fetching)
		}
		t.Logf("progress while fetching: %v", fetching)

		write(27)
		r = e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		if sc = waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" || sc.ChangeCounts["updated"] != 1 {
			t.Fatalf("re-scan %+v", sc)
		}

		r = e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "wfs", "title": "Wrong", "url_remote": url,
			"options": map[string]any{"username": "reader", "password": "wrong-Secret-99"}}})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &src)
		sc = waitScan(t, e, pub.Key, src.ID)
		lr := e.Do(t, req{Path: sc.Log, Key: pub.Key})
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "401") ||
			strings.Contains(*sc.Error+string(lr.Body), "wrong-Secret-99") {
			t.Fatalf("wrong password: %+v %s", sc, lr.Body)
		}
	})
}
