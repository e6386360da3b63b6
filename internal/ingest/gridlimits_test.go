package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// A small sparse file that declares a huge grid is refused before any
// cell is read, by Scan and by BuildGrid.
func TestDeclaredHugeRasterIsRefused(t *testing.T) {
	dir := t.TempDir()
	ingesttest.SparseGrid(t, filepath.Join(dir, "huge.tif"), 200000, 200000)
	start := time.Now()
	_, err := ingest.BuildGrid(context.Background(), dir, []ingest.Datasource{{Path: "huge.tif", DataType: ingest.TypeGrid}},
		filepath.Join(t.TempDir(), "out.tif"), ingest.Limits{}, nil)
	if !errors.Is(err, ingest.ErrRasterTooLarge) || !strings.Contains(err.Error(), "200000 × 200000") {
		t.Fatalf("BuildGrid: %v, want ErrRasterTooLarge naming the size", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("refusing took %s", took)
	}
	res, err := ingest.Scan(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Datasources) != 0 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Message, "raster too large") {
		t.Fatalf("scan: %+v", res)
	}
}

// The GDAL copy of a grid stops soon after its context ends.
func TestBuildGridStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	ingesttest.SparseGrid(t, filepath.Join(dir, "big.tif"), 60000, 60000)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	out := filepath.Join(t.TempDir(), "out.tif")
	start := time.Now()
	var shares []float64
	_, err := ingest.BuildGrid(ctx, dir, []ingest.Datasource{{Path: "big.tif", DataType: ingest.TypeGrid}}, out,
		ingest.Limits{MaxRasterCells: 1 << 40}, func(f float64) { shares = append(shares, f) })
	took := time.Since(start)
	t.Logf("progress reported: %v", shares)
	// The copy's progress is passed on as it runs: at least once in the
	// half second before the cancellation, rising, within [0, 1].
	if len(shares) == 0 || !slices.IsSorted(shares) || shares[0] < 0 || shares[len(shares)-1] > 1 {
		t.Errorf("progress %v, want rising shares of the copy within [0, 1]", shares)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("BuildGrid: %v after %s, want context.Canceled", err, took)
	}
	t.Logf("the copy stopped %s after the cancellation", took-500*time.Millisecond)
	if took > 10*time.Second {
		t.Fatalf("the copy ran %s after a cancellation at 0.5s", took)
	}
	os.Remove(out)
}
