package tilearchive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/moduleroot"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/vectortiles"
)

// testVersion is the version id the test layer's features are stored
// under (tiles need no layer rows).
const testVersion = 1

// storeLayer stores n points and n/10 small squares around Wellington as
// version testVersion, and returns their box.
func storeLayer(t testing.TB, st *store.Store, n int) [4]float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, 12))
	box := [4]float64{180, 90, -180, -90}
	err := st.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := featurerows.NewWriter(ctx, st, tx, testVersion)
		if err != nil {
			return err
		}
		for i := range n + n/10 {
			x, y := 174.6+rng.Float64()*0.5, -41.4+rng.Float64()*0.35
			var g geom.T = geom.NewPointFlat(geom.XY, []float64{x, y})
			d := 0.0
			if i >= n {
				d = 0.002 + rng.Float64()*0.003
				g = geom.NewPolygonFlat(geom.XY, []float64{x, y, x + d, y, x + d, y + d, x, y + d, x, y}, []int{10})
			}
			box = [4]float64{min(box[0], x), min(box[1], y), max(box[2], x+d), max(box[3], y+d)}
			b, err := wkb.Marshal(g, binary.LittleEndian)
			if err != nil {
				return err
			}
			if err := w.Write(featurerows.Row{FID: int64(i + 1), Geom: b, Attrs: map[string]any{"n": i, "name": "feature"}}); err != nil {
				return err
			}
		}
		_, err = w.Close()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// recorder remembers what a source gave, by z/x/y.
type recorder struct {
	src   Source
	mu    sync.Mutex
	tiles map[string][]byte
}

func record(src Source) *recorder { return &recorder{src: src, tiles: map[string][]byte{}} }

func (r *recorder) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	b, err := r.src.Tile(ctx, z, x, y)
	if err == nil {
		r.mu.Lock()
		r.tiles[fmt.Sprintf("%d/%d/%d", z, x, y)] = b
		r.mu.Unlock()
	}
	return b, err
}

// mvtSource is the real vector tile service's tiles of the stored layer.
func mvtSource(st *store.Store) Source {
	svc := vectortiles.New(st, vectortiles.Config{}, nil)
	l := &vectortiles.Layer{ID: 1, VersionID: testVersion}
	return SourceFunc(func(ctx context.Context, z, x, y int) ([]byte, error) {
		return svc.LayerMVT(ctx, l, vectortiles.Tile{Z: z, X: x, Y: y})
	})
}

// pngSource draws a 256-pixel PNG per tile over box, a colour by tile,
// and leaves tiles of odd x at zoom 8 empty.
func pngSource(box [4]float64) Source {
	return SourceFunc(func(_ context.Context, z, x, y int) ([]byte, error) {
		if z == 8 && x%2 == 1 {
			return nil, nil
		}
		img := image.NewNRGBA(image.Rect(0, 0, 256, 256))
		c := color.NRGBA{R: uint8(z * 20), G: uint8(x), B: uint8(y), A: 255}
		for i := 0; i < 256; i++ {
			for j := 0; j < 256; j++ {
				if (i/32+j/32)%2 == 0 {
					img.SetNRGBA(i, j, c)
				}
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
}

// moduleRoot is the folder of go.mod above the test's working directory.
func moduleRoot(t testing.TB) string {
	dir, err := moduleroot.Dir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// need fails the test when GEOPUB_REQUIRE_TOOLS is set and tool is
// missing, and skips it otherwise.
func need(t testing.TB, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s is missing; the tile archive tests read archives with it", tool)
		}
		t.Skipf("%s is missing", tool)
	}
}

// nodeRead is what scripts/pmtiles-reader/read.mjs says of an archive.
type nodeRead struct {
	Header struct {
		SpecVersion, TileType, MinZoom, MaxZoom, CenterZoom  int
		TileCompression, InternalCompression                 int
		Clustered                                            bool
		NumAddressedTiles, NumTileEntries, NumTileContents   int64
		MinLon, MinLat, MaxLon, MaxLat, CenterLon, CenterLat float64
		LeafDirectoryLength                                  int64
	} `json:"header"`
	Metadata map[string]any `json:"metadata"`
	Tiles    map[string]*struct {
		Length int    `json:"length"`
		SHA256 string `json:"sha256"`
	} `json:"tiles"`
}

// readWithNode reads tiles keys ("z/x/y") of the archive at path with the
// pmtiles npm package.
func readWithNode(t *testing.T, path string, keys []string) *nodeRead {
	t.Helper()
	need(t, "node")
	root := moduleRoot(t)
	dir, err := exec.Command("bash", filepath.Join(root, "scripts", "ensure-npm.sh"), "pmtiles-reader").Output()
	if err != nil {
		t.Fatalf("scripts/ensure-npm.sh pmtiles-reader: %v", err)
	}
	cmd := exec.Command("node", filepath.Join(root, "scripts", "pmtiles-reader", "read.mjs"), path)
	cmd.Env = append(os.Environ(), "PMTILES_READER_DIR="+strings.TrimSpace(string(dir)))
	cmd.Stdin = strings.NewReader(strings.Join(keys, "\n"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("read.mjs: %v\n%s", err, stderr.String())
	}
	var r nodeRead
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("read.mjs answered %.200s: %v", out, err)
	}
	return &r
}

// checkWithNode writes src to a PMTiles file and has the npm reader read
// every tile the source gave, and some it did not.
func checkWithNode(t *testing.T, src Source, o Options, wantType int) *nodeRead {
	t.Helper()
	rec := record(src)
	path := filepath.Join(t.TempDir(), "a.pmtiles")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := WritePMTiles(context.Background(), f, t.TempDir(), rec, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	nonEmpty := 0
	for k, b := range rec.tiles {
		keys = append(keys, k)
		if len(b) > 0 {
			nonEmpty++
		}
	}
	if int64(nonEmpty) != st.Tiles || st.Tiles < 20 {
		t.Fatalf("%d non-empty tiles made, %d written", nonEmpty, st.Tiles)
	}
	// Tiles never made: outside the bounds, and deeper than the archive.
	var never []string
	for _, k := range []string{"3/0/0", "4/15/15", fmt.Sprintf("%d/0/0", o.MaxZoom+1)} {
		if _, ok := rec.tiles[k]; !ok {
			never = append(never, k)
		}
	}
	keys = append(keys, never...)
	r := readWithNode(t, path, keys)
	h := r.Header
	if h.SpecVersion != 3 || h.TileType != wantType || h.MinZoom != o.MinZoom || h.MaxZoom != o.MaxZoom || !h.Clustered ||
		h.NumAddressedTiles != st.Tiles || h.NumTileContents != st.Unique {
		t.Fatalf("header %+v, stats %+v", h, st)
	}
	for i, got := range []float64{h.MinLon, h.MinLat, h.MaxLon, h.MaxLat} {
		if d := got - o.Bounds[i]; d > 1e-7 || d < -1e-7 {
			t.Fatalf("bounds %v, want %v", []float64{h.MinLon, h.MinLat, h.MaxLon, h.MaxLat}, o.Bounds)
		}
	}
	if h.CenterLon < o.Bounds[0] || h.CenterLon > o.Bounds[2] || h.CenterLat < o.Bounds[1] || h.CenterLat > o.Bounds[3] {
		t.Fatalf("center %v, %v outside the bounds", h.CenterLon, h.CenterLat)
	}
	for k, want := range rec.tiles {
		got := r.Tiles[k]
		if len(want) == 0 {
			if got != nil {
				t.Fatalf("empty tile %s read as %d bytes", k, got.Length)
			}
			continue
		}
		if o.Compressed {
			// The reader undoes the archive's tile compression.
			want = gunzip(t, want)
		}
		sum := sha256.Sum256(want)
		if got == nil || got.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("tile %s: read %+v, want %d bytes", k, got, len(want))
		}
	}
	for _, k := range never {
		if r.Tiles[k] != nil {
			t.Fatalf("tile %s, never made, read back", k)
		}
	}
	if r.Metadata["name"] != o.Name || r.Metadata["attribution"] != o.Attribution {
		t.Fatalf("metadata %v", r.Metadata)
	}
	return r
}

// Protomaps' own reader (the pmtiles npm package) reads back the header,
// metadata and every tile of an archive of the real vector tile
// service's MVT, on both stores, and of PNG tiles.
func TestPMTilesReadByPMTilesJS(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		box := storeLayer(t, st, 3000)
		vl := []any{map[string]any{"id": vectortiles.LayerName(1), "fields": map[string]string{"n": "Number", "name": "String"}}}
		r := checkWithNode(t, mvtSource(st), Options{MinZoom: 0, MaxZoom: 13, Bounds: box, Type: TypeMVT,
			Name: "points", Attribution: "test", Metadata: map[string]any{"vector_layers": vl}}, 1)
		layers, _ := r.Metadata["vector_layers"].([]any)
		if len(layers) != 1 || layers[0].(map[string]any)["id"] != "layer-1" {
			t.Fatalf("vector_layers %v", r.Metadata["vector_layers"])
		}
	})
	t.Run("gzipped", func(t *testing.T) {
		// Gzipped tiles, as the tile cache holds them: tile compression
		// gzip in the header, and the reader hands back the plain tile.
		src := SourceFunc(func(_ context.Context, z, x, y int) ([]byte, error) {
			if z >= 6 && (x+y)%3 == 0 {
				return nil, nil
			}
			return gzipBytes(unique(z, x, y))
		})
		r := checkWithNode(t, src, Options{MinZoom: 0, MaxZoom: 8, Bounds: [4]float64{166, -47, 179, -34}, Type: TypeMVT,
			Compressed: true, Name: "gz", Attribution: "test"}, 1)
		if r.Header.TileCompression != compressionGzip {
			t.Fatalf("tile compression %d", r.Header.TileCompression)
		}
	})
	t.Run("png", func(t *testing.T) {
		checkWithNode(t, pngSource(wellington), Options{MinZoom: 2, MaxZoom: 12, Bounds: wellington, Type: TypePNG,
			Name: "raster", Attribution: "test"}, 2)
	})
	t.Run("leaves", func(t *testing.T) {
		// Enough distinct tiles for leaf directories.
		rng := rand.New(rand.NewPCG(5, 6))
		var mu sync.Mutex
		src := SourceFunc(func(_ context.Context, z, x, y int) ([]byte, error) {
			mu.Lock()
			n := 4 + rng.IntN(300)
			mu.Unlock()
			b := make([]byte, n)
			binary.LittleEndian.PutUint32(b, uint32(TileID(z, x, y)))
			return b, nil
		})
		r := checkWithNode(t, src, Options{MinZoom: 0, MaxZoom: 7, Bounds: [4]float64{-180, -85.0511287798066, 180, 85.0511287798066},
			Type: TypeWebP, Name: "leaves", Attribution: "test"}, 4)
		if r.Header.LeafDirectoryLength == 0 {
			t.Fatal("no leaf directories")
		}
	})
}
