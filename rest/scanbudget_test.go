package rest_test

import (
	"archive/zip"
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/server"
)

// zipOfZeros is a zip of one file of n zero bytes: a few kilobytes that
// unpack to n.
func zipOfZeros(t *testing.T, name string, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Issue 24, 0h: one scan unpacks no more than the operator's budget, all
// its archives together, and what it skipped (the archive beyond the
// budget, a raster declaring too many cells) is in the scan's state with
// why, not only in its log.
func TestScanBudgetAndSkippedFiles(t *testing.T) {
	tune := func(c *server.Config) { c.Limits.ScanBytes = 16 << 20; c.Limits.MaxRasterCells = 1000 }
	eachWith(t, tune, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		tree := t.TempDir()
		ingesttest.SparseGrid(t, filepath.Join(tree, "huge.tif"), 200000, 200000)
		src := upload(t, e, pub.Key, map[string][]byte{
			"bomb.zip":  zipOfZeros(t, "zeros.bin", 64<<20),
			"grids.zip": zipDir(t, tree),
			"data.zip":  zipOf(t, map[string]string{"roads.geojson": fixtureFiles["roads.geojson"]}),
		})
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		if _, ok := datasources(t, e, pub.Key, src.ID)["data/roads.geojson"]; !ok {
			t.Errorf("the archive within the budget was not scanned")
		}
		why := map[string]string{}
		for _, s := range sc.Skipped {
			why[s.Path] = s.Reason
		}
		if !strings.Contains(why["bomb.zip"], "more than the 16 MiB one scan may unpack") {
			t.Errorf("bomb.zip: skipped %+v", sc.Skipped)
		}
		if !strings.Contains(why["grids/huge.tif"], "declares 200000 × 200000 cells") {
			t.Errorf("grids/huge.tif: skipped %+v", sc.Skipped)
		}
	})
}
