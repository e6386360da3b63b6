package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/testtier"
)

// Issue 11, defect 11: concurrent writes answered "database is locked
// (SQLITE_BUSY)" while cancelling jobs, and draft updates that restart an
// import answered 500 after waiting. Sixteen clients write at once
// through the API — draft updates that restart imports, new layers, scans
// started and cancelled, tokens created — and every write must queue and
// succeed: no 5xx, no busy error.
func TestConcurrentWritesQueue(t *testing.T) {
	testtier.FullOnly(t, "stress test")
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		src := upload(t, e, pub.Key, map[string][]byte{"data.zip": zipOf(t, map[string]string{
			"roads.geojson": fixtureFiles["roads.geojson"], "sites.csv": fixtureFiles["sites.csv"]})})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		roads := datasources(t, e, pub.Key, src.ID)["roads.geojson"]
		const workers, rounds = 16, 6
		layers := make([]layerRecord, workers)
		for i := range layers {
			layers[i] = doJSON[layerRecord](t, e, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
				"name": fmt.Sprintf("L%d", i), "data": map[string]any{"datasources": []int{roads.ID}}}}, http.StatusCreated)
		}

		// Each worker signs in as its own user: parallel sign-ins of one
		// account from one address are throttled by design.
		signers := make([]*user, workers)
		for i := range signers {
			signers[i] = e.NewUser(t, fmt.Sprintf("Signer%d", i))
		}
		var writes, failures atomic.Int64
		var mu sync.Mutex
		var bad []string
		check := func(what string, r *servertest.Response, ok ...int) {
			writes.Add(1)
			body := string(r.Body)
			good := r.Status < 500 && !strings.Contains(body, "locked") && !strings.Contains(body, "BUSY")
			if good && len(ok) > 0 {
				good = false
				for _, s := range ok {
					good = good || r.Status == s
				}
			}
			if !good {
				failures.Add(1)
				mu.Lock()
				bad = append(bad, fmt.Sprintf("%s: %d %.200s", what, r.Status, body))
				mu.Unlock()
			}
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				l := layers[w]
				for i := range rounds {
					// A draft update that restarts the import (cancelling
					// the running one).
					check("PUT draft", e.Do(t, req{Method: "PUT", Path: l.ThisVersion, Key: pub.Key, Body: map[string]any{
						"name": fmt.Sprintf("L%d.%d", w, i), "data": map[string]any{"datasources": []int{roads.ID}}}}), http.StatusOK)
					switch (w + i) % 3 {
					case 0:
						r := e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key})
						check("POST scan", r)
						var sc scanRecord
						if r.Status == http.StatusCreated || r.Status == http.StatusAccepted {
							r.JSON(t, &sc)
							// Conflict when the scan has already ended.
							check("DELETE scan", e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/sources/%d/scans/%d/", src.ID, sc.ID), Key: pub.Key}),
								http.StatusOK, http.StatusNoContent, http.StatusConflict)
						}
					case 1:
						check("POST token", formPost(t, e, "/tokens", url.Values{"grant_type": {"password"},
							"username": {signers[w].Email}, "password": {servertest.Password}}), http.StatusCreated)
					case 2:
						check("POST layer", e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
							"name": fmt.Sprintf("N%d.%d", w, i), "data": map[string]any{"datasources": []int{roads.ID}}}}), http.StatusCreated)
					}
				}
			})
		}
		wg.Wait()
		t.Logf("%d writes, %d failed", writes.Load(), failures.Load())
		if len(bad) > 0 {
			t.Fatalf("%d of %d writes failed, e.g.:\n%s", len(bad), writes.Load(), strings.Join(bad[:min(len(bad), 10)], "\n"))
		}
		for _, l := range layers {
			if v := waitVersion(t, e, pub.Key, l.ThisVersion); v.Version.Status != "ok" {
				t.Fatalf("after the storm, %s: %+v", l.ThisVersion, v.Version)
			}
		}
	})
}
