package main

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/testtier"
)

// Issue 14: an export "survives a killed worker (restarts from scratch,
// never publishes a half-written zip)". The real `geopub serve` exports a
// published layer of crashPoints points as GeoPackage; it is SIGKILLed
// while the export job runs. Before the restart the export is still
// processing with no file in blob storage; after it, the job's second
// attempt writes the whole export again: complete, its zip holds every
// point, and no work folder of the dead process is left.
func TestKillDuringExport(t *testing.T) {
	testtier.FullOnly(t, "SIGKILLs a serving process during a 500,000-point export")
	gdal.Init()
	src := filepath.Join(t.TempDir(), "points.geojsons")
	writePoints(t, src, crashPoints)
	for _, backend := range storetest.Backends {
		t.Run(backend, func(t *testing.T) {
			c, proc := startCrashServe(t, backend, "sources:read sources:write layers:read layers:write exports:read exports:write")
			dir, dbURL, a, serve := c.dir, c.dbURL, c.a, c.serve

			dsID := waitDatasource(t, a, a.uploadFile(src), crashPoints)
			var l crashVersion
			a.postJSON("/layers/", map[string]any{"name": "Points", "data": map[string]any{"datasources": []int{dsID}}}, &l)
			pubURL := a.postJSON(l.ThisVersion+"publish/", nil, nil).Get("Location")
			waitPublished(t, a, pubURL, proc)

			st, err := store.Open(context.Background(), store.Config{DataDir: dir, DatabaseURL: dbURL})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			exportURL := a.postJSON("/exports/", map[string]any{"name": "crash", "formats": map[string]any{"vector": "application/x-ogc-gpkg"},
				"items": []map[string]any{{"item": strings.TrimSuffix(a.base, "/") + "/layers/" + strconv.Itoa(l.ID) + "/"}}}, nil).Get("Location")
			if exportURL == "" {
				t.Fatal("create export: no Location")
			}
			waitJobRunning(t, st, "export", proc)
			proc.kill(t)
			var state string
			if err := st.DB.QueryRow("SELECT state FROM exports").Scan(&state); err != nil {
				t.Fatal(err)
			}
			if state != "processing" {
				t.Fatalf("the export was %s at the kill; export more points", state)
			}
			blobs := filepath.Join(dir, "blobs", "exports")
			if files, _ := os.ReadDir(blobs); len(files) != 0 {
				t.Fatalf("after the kill, blob storage holds %v", names(files))
			}

			proc, a.base = serve()
			var x struct {
				State       string  `json:"state"`
				DownloadURL *string `json:"download_url"`
				Error       *string `json:"error"`
			}
			// Bounded for a stuck export, not for speed (see waitPublished).
			for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
				a.do("GET", exportURL, "", nil, &x)
				if x.State != "processing" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the export is still processing after the restart\n%s", tail(proc.Logs()))
				}
			}
			if x.State != "complete" || x.DownloadURL == nil {
				t.Fatalf("export after the restart: %+v %v", x, x.Error)
			}
			var attempt int
			if err := st.DB.QueryRow("SELECT attempt FROM river_job WHERE kind = 'export'").Scan(&attempt); err != nil || attempt != 2 {
				t.Fatalf("export job: attempt %d, %v", attempt, err)
			}
			if n := countZippedFeatures(t, a, *x.DownloadURL); n != crashPoints {
				t.Fatalf("the zip holds %d points, want %d", n, crashPoints)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "tmp", "*", "export-*"))
			if len(left) != 0 {
				t.Fatalf("work folders left: %v", left)
			}
		})
	}
}

// waitPublished waits until a publish ends, failing unless it completed.
func waitPublished(t *testing.T, a *api, pubURL string, p *process) {
	t.Helper()
	var g struct{ State string }
	// Bounded for a stuck publish, not for speed: a 500,000-point import
	// took over 90 s while go test compiled other packages beside it.
	for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		a.do("GET", pubURL, "", nil, &g)
		if g.State == "completed" {
			return
		}
		if g.State != "publishing" || time.Now().After(deadline) {
			t.Fatalf("publish %q\n%s", g.State, tail(p.Logs()))
		}
	}
}

// waitJobRunning waits until a worker has taken the job of kind.
func waitJobRunning(t *testing.T, st *store.Store, kind string, p *process) {
	t.Helper()
	q := "SELECT count(*) FROM river_job WHERE kind = ? AND state = 'running'"
	if st.Dialect == "postgres" {
		q = "SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'running'"
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := st.DB.QueryRow(q, kind).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the %s job did not start\n%s", kind, tail(p.Logs()))
		}
	}
}

// countZippedFeatures downloads an export, unpacks its GeoPackage and
// counts its features with GDAL.
func countZippedFeatures(t *testing.T, a *api, url string) int {
	t.Helper()
	if i := strings.Index(url, "/services/api/v1.x"); i >= 0 {
		url = a.base + url[i+len("/services/api/v1.x"):]
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "key "+a.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %d %v", resp.StatusCode, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("the download is not a whole zip: %v", err)
	}
	out := t.TempDir()
	n := 0
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".gpkg") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(out, filepath.Base(f.Name))
		w, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, rc); err != nil {
			t.Fatalf("unzipping %s: %v", f.Name, err)
		}
		rc.Close()
		w.Close()
		ds, err := godal.Open(p, godal.VectorOnly())
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ds.Layers() {
			c, err := l.FeatureCount()
			if err != nil {
				t.Fatal(err)
			}
			n += c
		}
		ds.Close()
	}
	return n
}

func names(es []os.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
