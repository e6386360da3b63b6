package rest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/server"
)

// Issue 24, 0e: a GeoPackage whose view recurses forever holds GDAL in
// one SQLite statement; the scan's deadline (base plus per MiB of its
// files) ends it: the scan is failed, saying why, within seconds, and
// GDAL has stopped too (no core stays busy).
func TestEndlessViewScanFailsAtItsDeadline(t *testing.T) {
	tune := func(c *server.Config) {
		c.Limits.DeadlineBase = 2 * time.Second
		c.Limits.DeadlinePerMB = 10 * time.Millisecond
	}
	eachWith(t, tune, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		path := ingesttest.ForeverGeoPackage(t, t.TempDir())
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		src := upload(t, e, pub.Key, map[string][]byte{filepath.Base(path): b})
		sc := waitScan(t, e, pub.Key, src.ID)
		took := time.Since(start)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "passed its deadline of 2.01s") ||
			!strings.Contains(*sc.Error, "forever.gpkg") || took > 15*time.Second {
			t.Fatalf("after %s the scan is %+v", took, sc)
		}
		t.Logf("the scan failed after %s: %s", took.Round(time.Millisecond), *sc.Error)
		time.Sleep(200 * time.Millisecond)
		before := cpuTime(t)
		time.Sleep(time.Second)
		if used := cpuTime(t) - before; used > 500*time.Millisecond {
			t.Fatalf("the process used %s of CPU in the second after the scan failed", used)
		}
	})
}
