package ogc_test

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// Issue 28: GDAL opens the MBTiles file served for a real published
// layer: its metadata names the layer's bounds and the zoom range, its
// vector layer is the tile service's, every point is in the z0 tile, and
// its tiles are those the description counts.
func TestTileArchiveMBTilesOpensInGDAL(t *testing.T) {
	ogrinfo := requireTool(t, "ogrinfo", "gdal-bin")
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		fs := randomPoints(7, 300)
		id := publishLayer(t, e, owner.User, "Points", "Point", fs)
		path := "/services/tiles/v1/layer=" + itoa(id) + "/tiles.mbtiles"
		archiveGet(t, e, path, owner.Key, nil)
		d := waitArchive(t, e, path, owner.Key, func(d archiveDoc) bool { return d.State == "ready" })
		resp, b := archiveGet(t, e, path, owner.Key, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/vnd.sqlite3" ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), ".mbtiles") {
			t.Fatalf("download: %d %v", resp.StatusCode, resp.Header)
		}
		file := filepath.Join(t.TempDir(), "layer.mbtiles")
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		run := func(args ...string) string {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, ogrinfo, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("ogrinfo %v: %v\n%s", args, err, out)
			}
			return string(out)
		}
		info := run("-ro", "-so", "-al", file)
		layer := "layer-" + itoa(id)
		for _, want := range []string{"using driver `MBTiles'", "Layer name: " + layer, "minzoom=0", "maxzoom=14", "format=pbf", "name=Points"} {
			if !strings.Contains(info, want) {
				t.Errorf("ogrinfo lacks %q:\n%s", want, info)
			}
		}
		m := regexp.MustCompile(`bounds=([-0-9.]+),([-0-9.]+),([-0-9.]+),([-0-9.]+)`).FindStringSubmatch(info)
		if m == nil {
			t.Fatalf("no bounds in:\n%s", info)
		}
		for i, want := range []float64{west, south, west + span, south + span*0.75} {
			got, _ := strconv.ParseFloat(m[i+1], 64)
			if got < want-0.01 || got > want+0.01 {
				t.Errorf("bounds[%d] = %v, want about %v", i, got, want)
			}
		}
		count := func(zoom string) int {
			out := run("-ro", "-so", "-oo", "ZOOM_LEVEL="+zoom, file, layer)
			m := regexp.MustCompile(`Feature Count: (\d+)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no feature count at z%s:\n%s", zoom, out)
			}
			n, _ := strconv.Atoi(m[1])
			return n
		}
		if n := count("0"); n != len(fs) {
			t.Errorf("z0 holds %d features, want %d", n, len(fs))
		}
		if n := count("14"); n < len(fs) {
			t.Errorf("z14 holds %d features, want every one of %d (and those in tile buffers)", n, len(fs))
		}
		db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var tiles int64
		if err := db.QueryRow(`SELECT COUNT(*) FROM tiles`).Scan(&tiles); err != nil {
			t.Fatal(err)
		}
		if tiles != d.File.Tiles || tiles == 0 {
			t.Errorf("the file holds %d tiles, its description %d", tiles, d.File.Tiles)
		}
	})
}
