package rest_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Small real files in text formats GDAL reads; the binary formats are
// covered by internal/ingest, which builds them with GDAL.
var fixtureFiles = map[string]string{
	"roads.geojson": `{"type": "FeatureCollection", "features": [
		{"type": "Feature", "properties": {"name": "State Highway 1", "lanes": 2},
		 "geometry": {"type": "LineString", "coordinates": [[174.77, -41.28], [174.78, -41.29]]}},
		{"type": "Feature", "properties": {"name": "Lambton Quay", "lanes": 4},
		 "geometry": {"type": "LineString", "coordinates": [[174.775, -41.283], [174.776, -41.284]]}}]}`,
	"sites.csv": "id,name,WKT\n1,Alpha,POINT (174.7 -41.2)\n2,Beta,POINT (174.8 -41.3)\n3,Gamma,POINT (174.9 -41.4)\n",
	"readme.pdf": "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n" +
		"trailer << /Root 1 0 R >>\n%%EOF\n",
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarGzOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// upload posts a multipart upload source: the source JSON and files whose
// names are upload paths (folders kept).
func upload(t *testing.T, e *env, key string, files map[string][]byte) *sourceRecord {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="source"`)
	h.Set("Content-Type", "application/json")
	pw, _ := mw.CreatePart(h)
	pw.Write([]byte(`{"type": "upload", "title": "Wellington data"}`))
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, name := range names {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file%d"; filename=%q`, i, name))
		h.Set("Content-Type", "application/octet-stream")
		fw, _ := mw.CreatePart(h)
		fw.Write(files[name])
	}
	mw.Close()
	r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: key, Body: body.Bytes(),
		Header: map[string]string{"Content-Type": mw.FormDataContentType()}})
	expectStatus(t, r, http.StatusCreated)
	var s sourceRecord
	r.JSON(t, &s)
	return &s
}

type scanRecord struct {
	ID           int            `json:"id"`
	URL          string         `json:"url"`
	Status       string         `json:"status"`
	Progress     float64        `json:"progress"`
	ChangeCounts map[string]int `json:"change_counts"`
	Error        *string        `json:"error"`
	Log          string         `json:"log"`
	Skipped      []struct{ Path, Reason string }
}

// waitScan polls the source's newest scan until it ends.
func waitScan(t *testing.T, e *env, key string, sourceID int) scanRecord {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.Do(t, req{Path: fmt.Sprintf("/sources/%d/scans/", sourceID), Key: key})
		expectStatus(t, r, http.StatusOK)
		var scans []scanRecord
		r.JSON(t, &scans)
		if len(scans) > 0 && scans[0].Status != "queued" && scans[0].Status != "scanning" {
			return scans[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan of source %d did not end: %s", sourceID, r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type datasourceRecord struct {
	ID           int    `json:"id"`
	Title        string `json:"title"`
	DataType     string `json:"data_type"`
	Format       string `json:"format"`
	GeometryType string `json:"geometry_type"`
	UploadPath   string `json:"upload_path"`
	CRS          *string
	Fields       []struct{ Name, Type string }
	NumFeatures  int64 `json:"num_features"`
	Extent       *struct {
		Type        string
		Coordinates [][][2]float64
	}
}

func datasources(t *testing.T, e *env, key string, sourceID int) map[string]datasourceRecord {
	t.Helper()
	r := e.Do(t, req{Path: fmt.Sprintf("/sources/%d/datasources/", sourceID), Key: key, Header: map[string]string{"Expand": "list"}})
	expectStatus(t, r, http.StatusOK)
	var ds []datasourceRecord
	r.JSON(t, &ds)
	out := map[string]datasourceRecord{}
	for _, d := range ds {
		out[d.UploadPath] = d
	}
	return out
}

func TestUploadSourceIsScanned(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		extra := `{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"n": 1}, "geometry": {"type": "Point", "coordinates": [170.5, -45.9]}}]}`
		src := upload(t, e, pub.Key, map[string][]byte{
			"data.zip":               zipOf(t, fixtureFiles),
			"folder/dunedin.geojson": []byte(extra),
		})
		if src.Type != "upload" {
			t.Fatalf("source %+v", src)
		}
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" || sc.Progress != 1 || sc.ChangeCounts["added"] != 4 {
			t.Fatalf("scan %+v", sc)
		}
		r := e.Do(t, req{Path: sc.Log, Key: pub.Key})
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") ||
			!strings.Contains(string(r.Body), "Found 4 possible data sources") || !strings.Contains(string(r.Body), "Finished!") {
			t.Fatalf("log %d %q", r.Status, r.Body)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		roads, sites, pdf, dunedin := ds["data/roads.geojson"], ds["data/sites.csv"], ds["data/readme.pdf"], ds["folder/dunedin.geojson"]
		if roads.DataType != "vector" || roads.GeometryType != "linestring" || roads.NumFeatures != 2 || roads.CRS == nil || *roads.CRS != "EPSG:4326" {
			t.Fatalf("roads %+v (all: %+v)", roads, ds)
		}
		if roads.Extent == nil || roads.Extent.Coordinates[0][0][0] < 174.76 || roads.Extent.Coordinates[0][2][1] > -41.27 {
			t.Fatalf("roads extent %+v", roads.Extent)
		}
		fields := map[string]string{}
		for _, f := range roads.Fields {
			fields[f.Name] = f.Type
		}
		if fields["name"] != "string" || fields["lanes"] != "integer" {
			t.Fatalf("roads fields %+v", roads.Fields)
		}
		if sites.DataType != "vector" || sites.GeometryType != "point" || sites.NumFeatures != 3 || sites.Format != "text/csv" {
			t.Fatalf("sites %+v", sites)
		}
		if pdf.DataType != "document" || dunedin.GeometryType != "point" {
			t.Fatalf("pdf %+v dunedin %+v", pdf, dunedin)
		}

		// The notification stream announced the scan.
		r = e.Do(t, req{Path: "/notifications/", Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		var ns []struct {
			Kind    string         `json:"kind"`
			Payload map[string]any `json:"payload"`
		}
		r.JSON(t, &ns)
		var kinds []string
		for _, n := range ns {
			kinds = append(kinds, n.Kind)
		}
		if strings.Join(kinds, ",") != "scan.started,scan.completed" || ns[1].Payload["added"] != float64(4) {
			t.Fatalf("notifications %s", r.Body)
		}

		// A rescan finds nothing new; a finished scan cannot be cancelled.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: sc.URL, Key: pub.Key}), http.StatusConflict)
		r = e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		again := waitScan(t, e, pub.Key, src.ID)
		if again.ID == sc.ID || again.Status != "completed" || again.ChangeCounts["added"]+again.ChangeCounts["updated"]+again.ChangeCounts["deleted"] != 0 {
			t.Fatalf("rescan %+v", again)
		}
		other := e.NewUser(t, "Other")
		expectStatus(t, e.Do(t, req{Path: sc.URL, Key: other.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: other.Key}), http.StatusNotFound)
		authMatrix(t, e, req{Path: fmt.Sprintf("/sources/%d/datasources/", src.ID)}, "sources:read", nil)
	})
}

func TestURLSourceIsScanned(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		archive := tarGzOf(t, fixtureFiles)
		files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/exports/wellington.tar.gz" {
				http.NotFound(w, r)
				return
			}
			w.Write(archive)
		}))
		defer files.Close()
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "url", "title": "Wellington archive", "url_remote": files.URL + "/exports/wellington.tar.gz"}})
		expectStatus(t, r, http.StatusCreated)
		var src sourceRecord
		r.JSON(t, &src)
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" || sc.ChangeCounts["added"] != 3 {
			t.Fatalf("scan %+v", sc)
		}
		if ds := datasources(t, e, pub.Key, src.ID); ds["roads.geojson"].GeometryType != "linestring" || ds["sites.csv"].NumFeatures != 3 {
			t.Fatalf("datasources %+v", ds)
		}

		// A URL that answers 404 fails the scan with a clear message.
		r = e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "url", "title": "Gone", "url_remote": files.URL + "/missing.zip"}})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &src)
		sc = waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "404") {
			t.Fatalf("scan of a missing file %+v", sc)
		}
	})
}

func TestUnsafeArchiveFailsTheScan(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		src := upload(t, e, pub.Key, map[string][]byte{"evil.zip": zipOf(t, map[string]string{"../escape.geojson": "{}"})})
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "escape") {
			t.Fatalf("scan %+v", sc)
		}
		if ds := datasources(t, e, pub.Key, src.ID); len(ds) != 0 {
			t.Fatalf("datasources from an unsafe archive: %+v", ds)
		}
		var ns []struct{ Kind string }
		e.Do(t, req{Path: "/notifications/", Key: pub.Key}).JSON(t, &ns)
		if len(ns) != 2 || ns[1].Kind != "scan.failed" {
			t.Fatalf("notifications %+v", ns)
		}
		// Upload paths must stay inside the source.
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("source", `{"type": "upload", "title": "x"}`)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file0"; filename="../../etc/passwd"`)
		fw, _ := mw.CreatePart(h)
		fw.Write([]byte("x"))
		mw.Close()
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: body.Bytes(),
			Header: map[string]string{"Content-Type": mw.FormDataContentType()}})
		expectStatus(t, r, http.StatusBadRequest)
		var fieldErrs map[string][]string
		json.Unmarshal(r.Body, &fieldErrs)
		if len(fieldErrs["file0"]) == 0 {
			t.Fatalf("body %s", r.Body)
		}
	})
}

// A .7z archive source, made with the 7z tool (p7zip, installed by the
// project's test dependencies).
func TestSevenZipUploadIsScanned(t *testing.T) {
	sevenZip, err := exec.LookPath("7z")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("7z is not installed: scripts/install-test-deps.sh installs p7zip-full")
		}
		t.Skip("7z not installed (make deps installs p7zip-full)")
	}
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		dir := t.TempDir()
		for name, body := range fixtureFiles {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		archive := filepath.Join(t.TempDir(), "data.7z")
		cmd := exec.Command(sevenZip, "a", "-bd", archive, ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("7z: %v\n%s", err, out)
		}
		b, err := os.ReadFile(archive)
		if err != nil {
			t.Fatal(err)
		}
		src := upload(t, e, pub.Key, map[string][]byte{"data.7z": b})
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" || sc.ChangeCounts["added"] != 3 {
			t.Fatalf("scan %+v", sc)
		}
		if ds := datasources(t, e, pub.Key, src.ID); ds["roads.geojson"].NumFeatures != 2 {
			t.Fatalf("datasources %+v", ds)
		}
	})
}
