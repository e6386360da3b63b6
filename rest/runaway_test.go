package rest_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// eachWith is each with changes to the service's configuration.
func eachWith(t *testing.T, tune func(*server.Config), fn func(t *testing.T, e *env)) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		fn(t, servertest.NewWith(t, st, tune))
	})
}

// waitJob polls a job until it is in one of the states.
func waitJob(t *testing.T, e *env, id int64, within time.Duration, states ...jobs.State) jobs.Info {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		info, err := e.Server.Resolver.Jobs.State(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if info.State == s {
				return info
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %s after %s, want one of %v", id, info.State, within, states)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cpuTime is the CPU time this process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Deleting a layer while its import copies a big grid stops the import
// within seconds: the job ends cancelled and no worker stays busy.
func TestDeleteLayerStopsItsImport(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.Limits.MaxRasterCells = 1 << 40 }, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		tree := t.TempDir()
		// A sparse file of a few hundred kilobytes declaring 3.6e9 cells:
		// its copy runs for minutes.
		ingesttest.SparseGrid(t, filepath.Join(tree, "big.tif"), 60000, 60000)
		src := upload(t, e, pub.Key, map[string][]byte{"big.zip": zipDir(t, tree)})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		big := datasources(t, e, pub.Key, src.ID)["big.tif"]
		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Big", "data": map[string]any{"datasources": []int{big.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l gridRecord
		r.JSON(t, &l)
		v := e.Store.Client.LayerVersion.GetX(t.Context(), l.Version.ID)
		if v.ImportJobID == nil {
			t.Fatalf("version %d has no import job", v.ID)
		}
		waitJob(t, e, *v.ImportJobID, 30*time.Second, jobs.StateRunning)
		time.Sleep(time.Second) // well into the copy

		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/layers/%d/", l.ID), Key: pub.Key}), http.StatusNoContent)
		deleted := time.Now()
		info := waitJob(t, e, *v.ImportJobID, 15*time.Second, jobs.StateCancelled, jobs.StateDiscarded, jobs.StateCompleted)
		stopped := time.Since(deleted)
		if info.State != jobs.StateCancelled {
			t.Fatalf("the import ended %s, want cancelled", info.State)
		}
		before := cpuTime(t)
		time.Sleep(time.Second)
		t.Logf("the import stopped %s after the delete; the process then used %s of CPU in 1 s",
			stopped.Round(time.Millisecond), (cpuTime(t) - before).Round(time.Millisecond))
		if used := cpuTime(t) - before; used > 500*time.Millisecond {
			t.Fatalf("the process used %s of CPU in the second after the import stopped", used)
		}
		if left, _ := os.ReadDir(e.Server.TempDir()); len(left) != 0 {
			t.Fatalf("the cancelled import left %v in the temporary area", left)
		}
	})
}

// A raster declaring more cells than allowed is refused with a clear
// message: by the scan (a problem, no datasource) and, for a mosaic
// beyond the limit, by the import.
func TestDeclaredHugeRasterIsRefused(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.Limits.MaxRasterCells = 1000 }, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		tree := t.TempDir()
		ingesttest.SparseGrid(t, filepath.Join(tree, "huge.tif"), 200000, 200000)
		// Two small grids 100 km apart: each is allowed, their mosaic is not.
		for i, x0 := range []float64{1700000, 1800000} {
			ingesttest.Grid(t, filepath.Join(tree, fmt.Sprintf("tile%d.tif", i)), 2193, 20, 10,
				[6]float64{x0, 100, 0, 5428000, 0, -100}, []ingesttest.GridBand{{Name: "level", Type: godal.Float32, Value: tileValue(0)}})
		}
		src := upload(t, e, pub.Key, map[string][]byte{"grids.zip": zipDir(t, tree)})
		sc := waitScan(t, e, pub.Key, src.ID)
		ds := datasources(t, e, pub.Key, src.ID)
		if _, ok := ds["huge.tif"]; ok || sc.Status != "completed" {
			t.Fatalf("the huge raster became a datasource: %+v %+v", sc, ds)
		}
		r := e.Do(t, req{Path: fmt.Sprintf("/sources/%d/scans/%d/log/", src.ID, sc.ID), Key: pub.Key})
		if !strings.Contains(string(r.Body), "huge.tif declares 200000 × 200000 cells") {
			t.Fatalf("the scan does not say why huge.tif was refused: %s", r.Body)
		}
		r = e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Apart", "data": map[string]any{"datasources": []int{ds["tile0.tif"].ID, ds["tile1.tif"].ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l gridRecord
		r.JSON(t, &l)
		failed := waitVersion(t, e, pub.Key, l.ThisVersion)
		if failed.Version.Status != "failed" || failed.Version.Error == nil ||
			!strings.Contains(*failed.Version.Error, "raster too large") || !strings.Contains(*failed.Version.Error, "mosaic") {
			t.Fatalf("the oversized mosaic imported as %+v", failed.Version)
		}
		if left, _ := os.ReadDir(e.Server.TempDir()); len(left) != 0 {
			t.Fatalf("the failed import left %v in the temporary area", left)
		}
	})
}

// trickler serves a body one byte per second, forever.
func trickler(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// urlSource creates a URL source (which starts its scan).
func urlSource(t *testing.T, e *env, key, u string) sourceRecord {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: key, Body: map[string]any{
		"type": "url", "title": "Slow", "url_remote": u}})
	expectStatus(t, r, http.StatusCreated)
	var src sourceRecord
	r.JSON(t, &src)
	return src
}

// Slow remote servers hold only the remote workers, and one user only
// their share of them: with a user's trickling downloads filling their
// share and queued beyond it, another user's download starts, and
// another user's upload is scanned at once.
func TestSlowRemoteSourcesLeaveLocalWork(t *testing.T) {
	tune := func(c *server.Config) {
		c.FetchStallTimeout = time.Minute
		c.Jobs.RemoteWorkers, c.Jobs.PerUser, c.Jobs.FairSnooze = 3, 2, 200*time.Millisecond
	}
	eachWith(t, tune, func(t *testing.T, e *env) {
		slow := trickler(t)
		hog, other := e.NewUser(t, "Hog"), e.NewUser(t, "Other")
		for i := 0; i < 4; i++ {
			urlSource(t, e, hog.Key, fmt.Sprintf("%s/slow%d.zip", slow.URL, i))
		}
		time.Sleep(500 * time.Millisecond) // the slow scans take their workers
		start := time.Now()
		src := upload(t, e, other.Key, map[string][]byte{"sites.csv": []byte(fixtureFiles["sites.csv"])})
		if sc := waitScan(t, e, other.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("upload scan %+v", sc)
		}
		t.Logf("the upload scan completed in %s beside 4 trickling downloads", time.Since(start).Round(time.Millisecond))
		// The hog runs 2 downloads (its share); the third remote worker
		// is free for the other user's.
		urlSource(t, e, other.Key, slow.URL+"/mine.zip")
		deadline := time.Now().Add(15 * time.Second)
		for {
			running := map[int]int{}
			for _, sc := range e.Store.Client.Scan.Query().AllX(t.Context()) {
				if sc.Status == "scanning" {
					running[sc.UserID]++
				}
			}
			if running[hog.ID] > 2 {
				t.Fatalf("the hog runs %d downloads, more than its share of 2", running[hog.ID])
			}
			if running[other.ID] == 1 && running[hog.ID] == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("running scans by user %v: the other user's download did not start", running)
			}
			time.Sleep(50 * time.Millisecond)
		}
		// Cancel the slow scans so the test ends promptly.
		keys := map[int]string{hog.ID: hog.Key, other.ID: other.Key}
		for _, sc := range e.Store.Client.Scan.Query().AllX(t.Context()) {
			if sc.Status == "queued" || sc.Status == "scanning" {
				e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/sources/%d/scans/%d", sc.SourceID, sc.ID), Key: keys[sc.UserID]})
			}
		}
	})
}

// A remote server that sends nothing fails the scan after the stall
// timeout, with a message that says so.
func TestStalledRemoteSourceFails(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.FetchStallTimeout = time.Second }, func(t *testing.T, e *env) {
		stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		defer stalled.Close()
		pub := e.NewUser(t, "Publisher")
		src := urlSource(t, e, pub.Key, stalled.URL+"/data.zip")
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "sent no data") {
			t.Fatalf("scan of a stalled server %+v", sc)
		}
	})
}

// No request or job leaves files behind: the multipart parts of an
// upload, and the work folders of scans and imports, whether they succeed
// or fail.
func TestNoTemporaryFilesRemain(t *testing.T) {
	sysTmp := t.TempDir()
	t.Setenv("TMPDIR", sysTmp) // where the multipart parser writes parts
	eachSerial(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		// Beyond the parser's 32 MiB in memory: the part goes to disk.
		big := bytes.Repeat([]byte("geopub "), 5<<20)
		src := upload(t, e, pub.Key, map[string][]byte{"sites.csv": []byte(fixtureFiles["sites.csv"]), "notes/big.txt": big})
		if left := multipartFiles(t, sysTmp); len(left) != 0 {
			t.Fatalf("the upload request left %v in the temporary directory", left)
		}
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Sites", "data": map[string]any{"datasources": []int{ds["sites.csv"].ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		if v := waitVersion(t, e, pub.Key, l.ThisVersion); v.Version.Status != "ok" {
			t.Fatalf("import %+v", v.Version)
		}
		if left, _ := os.ReadDir(e.Server.TempDir()); len(left) != 0 {
			t.Fatalf("scans and imports left %v in the temporary area", left)
		}

	})
}

// multipartFiles lists the multipart parser's files in dir (the test's
// own temporary folders live there too).
func multipartFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "multipart-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
