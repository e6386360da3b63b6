package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/testtier"
)

// The benchmark still works, small: 20,000 points to zoom 10, built and
// fetched in process; every tile of the archive is served non-empty.
func TestBenchSmall(t *testing.T) {
	testtier.FullOnly(t, "loads 20,000 points and builds an archive of them")
	ctx := context.Background()
	work := t.TempDir()
	dataDir := filepath.Join(work, "store")
	id, err := load(ctx, dataDir, 20000)
	if err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(work, "tiles.txt")
	b, err := build(ctx, dataDir, id, 0, 10, 2, filepath.Join(work, "a.pmtiles"), list)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(len(strings.Fields(string(lines)))); n != b.Stats.Tiles || n < 1000 {
		t.Fatalf("%d tiles listed, %d written", n, b.Stats.Tiles)
	}
	f, err := fetch(ctx, dataDir, id, list, 2)
	if err != nil {
		t.Fatal(err)
	}
	if f.Tiles != b.Stats.Tiles {
		t.Fatalf("fetched %d tiles, built %d", f.Tiles, b.Stats.Tiles)
	}
	t.Logf("build %s (%d tiles), fetch %s", b.Wall, b.Stats.Tiles, f.Wall)
}
