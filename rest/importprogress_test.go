package rest_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server"
)

// progressPoints is the size of the generated import: enough rows for
// several progress records at the test's short interval.
const progressPoints = 100_000

// pointsGPKG writes a GeoPackage of n points with GDAL (ogr2ogr from a
// generated CSV) and returns its bytes.
func pointsGPKG(t *testing.T, n int) []byte {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,name,lon,lat\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,point %d,%.6f,%.6f\n", i, i, 170+float64(i%1000)/200, -45+float64(i/1000)/50)
	}
	csv := filepath.Join(dir, "points.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "points.gpkg")
	cmd := exec.Command("ogr2ogr", "-f", "GPKG", out, csv, "-nln", "points", "-a_srs", "EPSG:4326",
		"-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", "-oo", "AUTODETECT_TYPE=YES")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ogr2ogr: %v: %s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

type notificationItem struct {
	ID      int            `json:"id"`
	Kind    string         `json:"kind"`
	Payload map[string]any `json:"payload"`
}

// allNotifications pages through the user's notification list.
func allNotifications(t *testing.T, e *env, key string) []notificationItem {
	t.Helper()
	var all []notificationItem
	after := 0
	for {
		r := e.Do(t, req{Path: "/notifications/?page_size=200&after=" + strconv.Itoa(after), Key: key})
		expectStatus(t, r, http.StatusOK)
		var items []notificationItem
		r.JSON(t, &items)
		if len(items) == 0 {
			return all
		}
		all = append(all, items...)
		after = items[len(items)-1].ID
	}
}

// Issue 12: "Imports report `progress` between 0 and 1 as rows are
// written (today it jumps from 0 to 1 after seconds), and notifications
// carry progress for long jobs (throttled, for example once a second)."
// The interval is shortened here so a 100,000-point import records
// several; every record is announced as import.progress.
func TestImportReportsProgress(t *testing.T) {
	gpkg := pointsGPKG(t, progressPoints)
	eachWith(t, func(c *server.Config) { c.ImportProgressEvery = 20 * time.Millisecond }, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		src := upload(t, e, pub.Key, map[string][]byte{"points.gpkg": gpkg})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		var dsID int
		for _, d := range datasources(t, e, pub.Key, src.ID) {
			dsID = d.ID
		}
		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Points", "data": map[string]any{"datasources": []int{dsID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		l = waitVersionWithin(t, e, pub.Key, l.ThisVersion, 2*time.Minute)
		if l.Version.Status != "ok" || l.Version.Progress != 1 || l.Data.FeatureCount != progressPoints {
			t.Fatalf("imported %+v", l)
		}

		var progress []float64
		completed := false
		for _, n := range allNotifications(t, e, pub.Key) {
			if n.Payload["version_id"] != float64(l.Version.ID) {
				continue
			}
			switch n.Kind {
			case "import.progress":
				if completed {
					t.Fatalf("progress %v announced after import.completed", n.Payload)
				}
				p, ok := n.Payload["progress"].(float64)
				if !ok || p <= 0 || p >= 1 {
					t.Fatalf("progress payload %v: want a number strictly between 0 and 1", n.Payload)
				}
				if len(progress) > 0 && p <= progress[len(progress)-1] {
					t.Fatalf("progress went %v then %v: want it rising", progress[len(progress)-1], p)
				}
				progress = append(progress, p)
			case "import.completed":
				completed = true
			}
		}
		if !completed || len(progress) < 2 {
			t.Fatalf("completed %v after %d progress notifications %v: want several before the end", completed, len(progress), progress)
		}
		t.Logf("%d progress notifications: %v", len(progress), progress)
	})
}
