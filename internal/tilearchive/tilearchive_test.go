package tilearchive

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// The spec's table of tile IDs (spec/v3/spec.md, 4.1).
func TestTileIDSpecVectors(t *testing.T) {
	for _, c := range []struct {
		z, x, y int
		id      uint64
	}{
		{0, 0, 0, 0}, {1, 0, 0, 1}, {1, 0, 1, 2}, {1, 1, 1, 3}, {1, 1, 0, 4}, {2, 0, 0, 5},
		{12, 3423, 1763, 19078479},
	} {
		if got := TileID(c.z, c.x, c.y); got != c.id {
			t.Errorf("TileID(%d,%d,%d) = %d, want %d", c.z, c.x, c.y, got, c.id)
		}
		if z, x, y := TileZXY(c.id); z != c.z || x != c.x || y != c.y {
			t.Errorf("TileZXY(%d) = %d/%d/%d, want %d/%d/%d", c.id, z, x, y, c.z, c.x, c.y)
		}
	}
}

// Every tile of zooms 0-6 has a distinct ID, consecutive within the zoom,
// that maps back to it; and deeper zooms round-trip at random.
func TestTileIDRoundTrip(t *testing.T) {
	for z := 0; z <= 6; z++ {
		n := 1 << z
		var ids []uint64
		for x := range n {
			for y := range n {
				id := TileID(z, x, y)
				if gz, gx, gy := TileZXY(id); gz != z || gx != x || gy != y {
					t.Fatalf("%d/%d/%d -> %d -> %d/%d/%d", z, x, y, id, gz, gx, gy)
				}
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		first := (uint64(1)<<(2*z) - 1) / 3
		for i, id := range ids {
			if id != first+uint64(i) {
				t.Fatalf("zoom %d: IDs are not consecutive from %d", z, first)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		z := rng.IntN(25)
		x, y := rng.IntN(1<<z), rng.IntN(1<<z)
		if gz, gx, gy := TileZXY(TileID(z, x, y)); gz != z || gx != x || gy != y {
			t.Fatalf("%d/%d/%d round trip gave %d/%d/%d", z, x, y, gz, gx, gy)
		}
	}
}

// A directory's encoding reads back: varints of every size, contiguous
// and non-contiguous offsets.
func TestDirectoryRoundTrip(t *testing.T) {
	es := []entry{
		{TileID: 0, Offset: 0, Length: 10, RunLength: 1},
		{TileID: 5, Offset: 10, Length: 300, RunLength: 3},
		{TileID: 1 << 40, Offset: 5, Length: 70000, RunLength: 1},
		{TileID: 1<<40 + 1, Offset: 70005, Length: 1, RunLength: 1 << 20},
		{TileID: 1<<62 + 3, Offset: 0, Length: 10, RunLength: 1},
	}
	got, err := decodeDirectory(encodeDirectory(es))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, es) {
		t.Fatalf("got %v, want %v", got, es)
	}
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<63 + 5} {
		b := binary.AppendUvarint(nil, v)
		if r, n := binary.Uvarint(b); r != v || n != len(b) {
			t.Fatalf("varint %d read back as %d", v, r)
		}
	}
}

// mapSource serves tiles from a map by z/x/y; missing ones are empty.
type mapSource struct {
	tiles map[[3]int][]byte
	calls atomic.Int64
}

func (m *mapSource) Tile(_ context.Context, z, x, y int) ([]byte, error) {
	m.calls.Add(1)
	return m.tiles[[3]int{z, x, y}], nil
}

// pyramid makes a source whose tiles are non-empty over box at zooms
// minZ..maxZ (and their parents), each with content content(z, x, y).
func pyramid(box [4]float64, maxZ int, content func(z, x, y int) []byte) *mapSource {
	m := &mapSource{tiles: map[[3]int][]byte{}}
	box, _ = checkOptions(Options{Bounds: box, Type: TypePNG})
	for z := 0; z <= maxZ; z++ {
		s := spanOf(box, z)
		for x := s.x0; x <= s.x1; x++ {
			for y := s.y0; y <= s.y1; y++ {
				m.tiles[[3]int{z, x, y}] = content(z, x, y)
			}
		}
	}
	return m
}

func unique(z, x, y int) []byte { return fmt.Appendf(nil, "tile %d/%d/%d", z, x, y) }

func write(t *testing.T, src Source, o Options) (*archive, Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := WritePMTiles(context.Background(), &buf, t.TempDir(), src, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) {
		t.Fatalf("Stats.Bytes %d, wrote %d", st.Bytes, buf.Len())
	}
	return readArchive(t, buf.Bytes()), st
}

var wellington = [4]float64{174.6, -41.4, 175.1, -41.05}

// Every tile the source has under the walk is in the archive, nothing
// else is, the header says so, and tiles outside the bounds or under
// empty tiles are never asked for.
func TestPMTilesHoldsTheSourceTiles(t *testing.T) {
	src := pyramid(wellington, 12, unique)
	// A tile outside the bounds the walk must not ask for.
	src.tiles[[3]int{5, 0, 0}] = []byte("outside")
	a, st := write(t, src, Options{MinZoom: 0, MaxZoom: 12, Bounds: wellington, Type: TypePNG,
		Name: "w", Description: "d", Attribution: "a", Workers: 3})
	if int64(len(src.tiles)-1) != st.Tiles || len(a.tiles) != len(src.tiles)-1 {
		t.Fatalf("%d tiles in the archive, %d in stats, want %d", len(a.tiles), st.Tiles, len(src.tiles)-1)
	}
	for k, want := range src.tiles {
		if k == [3]int{5, 0, 0} {
			continue
		}
		if got := a.tiles[TileID(k[0], k[1], k[2])]; !bytes.Equal(got, want) {
			t.Fatalf("tile %v: %q, want %q", k, got, want)
		}
	}
	if got := src.calls.Load(); got != st.Tiles+st.Empty {
		t.Fatalf("%d calls, %d tiles and %d empty", got, st.Tiles, st.Empty)
	}
	if st.Empty != 0 {
		t.Fatalf("%d empty tiles visited, want none (every child meeting the bounds has data)", st.Empty)
	}
	h := a.h
	if !h.clustered || h.internal != compressionGzip || h.tileCompression != compressionNone || h.tileType != 2 ||
		h.minZoom != 0 || h.maxZoom != 12 || h.addressed != uint64(st.Tiles) || h.contents != uint64(st.Unique) ||
		h.tileEntries != uint64(a.entries) {
		t.Fatalf("header %+v", h)
	}
	for i, want := range wellington {
		if d := h.bounds[i] - want; d > 1e-7 || d < -1e-7 {
			t.Fatalf("bounds %v, want %v", h.bounds, wellington)
		}
	}
	if h.rootOffset != headerLen || h.metadataOffset != h.rootOffset+h.rootLength || h.dataOffset+h.dataLength != uint64(len(a.raw)) {
		t.Fatalf("sections out of order: %+v", h)
	}
	if a.meta["name"] != "w" || a.meta["description"] != "d" || a.meta["attribution"] != "a" || a.meta["type"] != "overlay" {
		t.Fatalf("metadata %v", a.meta)
	}
	// Clustered: tile data in tile-ID order.
	var ids []uint64
	for id := range a.tiles {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var last uint64
	for _, id := range ids {
		off := uint64(bytes.Index(a.raw[h.dataOffset:], a.tiles[id]))
		if off < last {
			t.Fatalf("tile %d's data before an earlier tile's", id)
		}
		last = off
	}
}

// Empty tiles are not written and nothing under them is visited.
func TestPMTilesSkipsEmptySubtrees(t *testing.T) {
	src := pyramid(wellington, 10, unique)
	// Empty the zoom-6 tile and so its descendants (still in the map,
	// but the walk must not reach them).
	s6 := spanOf(wellington, 6)
	delete(src.tiles, [3]int{6, s6.x0, s6.y0})
	a, st := write(t, src, Options{MinZoom: 0, MaxZoom: 10, Bounds: wellington, Type: TypePNG})
	for k := range src.tiles {
		if k[0] > 6 && k[1]>>(k[0]-6) == s6.x0 && k[2]>>(k[0]-6) == s6.y0 {
			if _, ok := a.tiles[TileID(k[0], k[1], k[2])]; ok {
				t.Fatalf("tile %v under an empty tile was written", k)
			}
		}
	}
	if st.Empty != 1 {
		t.Fatalf("%d empty tiles visited, want 1", st.Empty)
	}
}

// Identical contents are stored once, consecutive identical tiles are one
// run-length entry.
func TestPMTilesDedupAndRunLength(t *testing.T) {
	world := [4]float64{}
	src := pyramid(world, 5, func(z, x, y int) []byte {
		if z == 5 {
			return []byte("ocean")
		}
		if z == 4 && x%2 == 0 {
			return []byte("land")
		}
		return unique(z, x, y)
	})
	a, st := write(t, src, Options{MinZoom: 0, MaxZoom: 5, Type: TypePNG})
	// Zooms 0-3 (85 tiles) and the 128 odd-column tiles at 4 unique,
	// plus "land" and "ocean".
	if want := int64(85 + 128 + 2); st.Unique != want || a.h.contents != uint64(want) {
		t.Fatalf("%d unique contents (header %d), want %d", st.Unique, a.h.contents, want)
	}
	if st.Tiles != 1365 || len(a.tiles) != 1365 {
		t.Fatalf("%d tiles, want 1,365", st.Tiles)
	}
	// All of zoom 5 is one run.
	if a.entries > 85+256+1 {
		t.Fatalf("%d entries: zoom 5's 1,024 identical tiles were not one run", a.entries)
	}
	if got := string(a.tiles[TileID(5, 17, 3)]); got != "ocean" {
		t.Fatalf("tile 5/17/3 %q", got)
	}
	if got := string(a.tiles[TileID(4, 2, 9)]); got != "land" {
		t.Fatalf("tile 4/2/9 %q", got)
	}
	if a.h.dataLength >= 1365*5 {
		t.Fatalf("tile data of %d bytes: not deduplicated", a.h.dataLength)
	}
}

// Enough distinct tiles for the root to overflow 16 KiB get leaf
// directories, and every tile is still found.
func TestPMTilesLeafDirectories(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	src := pyramid([4]float64{}, 7, func(z, x, y int) []byte {
		// Random lengths defeat the contiguous-offset shortcut's
		// compression, so the root is large.
		b := make([]byte, 4+rng.IntN(300))
		binary.LittleEndian.PutUint32(b, uint32(TileID(z, x, y)))
		return append(b, unique(z, x, y)...)
	})
	a, st := write(t, src, Options{MinZoom: 0, MaxZoom: 7, Type: TypeWebP, Workers: 2})
	if a.leaves < 2 || a.h.leavesLength == 0 {
		t.Fatalf("%d leaves for %d tiles", a.leaves, st.Tiles)
	}
	if a.leafEntries != int(st.Tiles) || len(a.tiles) != len(src.tiles) {
		t.Fatalf("%d entries in leaves, %d tiles read, want %d", a.leafEntries, len(a.tiles), len(src.tiles))
	}
	for k, want := range src.tiles {
		if got := a.tiles[TileID(k[0], k[1], k[2])]; !bytes.Equal(got, want) {
			t.Fatalf("tile %v differs", k)
		}
	}
}

// MaxTiles and MaxBytes stop the walk with ErrTooLarge; Estimate bounds
// the tiles visited.
func TestPMTilesTooLarge(t *testing.T) {
	src := pyramid(wellington, 12, unique)
	o := Options{MinZoom: 0, MaxZoom: 12, Bounds: wellington, Type: TypeMVT}
	if e := Estimate(o); e < int64(len(src.tiles)) {
		t.Fatalf("Estimate %d below the %d tiles", e, len(src.tiles))
	}
	for _, lim := range []Options{{MaxTiles: 10}, {MaxBytes: 200}} {
		o.MaxTiles, o.MaxBytes = lim.MaxTiles, lim.MaxBytes
		_, err := WritePMTiles(context.Background(), &bytes.Buffer{}, t.TempDir(), src, o)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("limits %d tiles, %d bytes: %v, want ErrTooLarge", lim.MaxTiles, lim.MaxBytes, err)
		}
	}
	// A first level too large to list: the world at zoom 13.
	if _, err := WritePMTiles(context.Background(), &bytes.Buffer{}, t.TempDir(), src, Options{MinZoom: 13, MaxZoom: 13, Type: TypeMVT}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("the world at zoom 13: %v", err)
	}
	if _, err := WritePMTiles(context.Background(), &bytes.Buffer{}, t.TempDir(), src, Options{MaxZoom: 40, Type: TypeMVT}); err == nil {
		t.Fatal("zoom 40 accepted")
	}
	if _, err := WritePMTiles(context.Background(), &bytes.Buffer{}, t.TempDir(), src, Options{MaxZoom: 4, Type: "gif"}); err == nil {
		t.Fatal("type gif accepted")
	}
}

// Cancelling the context stops the walk: the writer returns the
// context's error, and the source is not called after it returned.
func TestPMTilesCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls, after atomic.Int64
	var returned atomic.Bool
	src := SourceFunc(func(ctx context.Context, z, x, y int) ([]byte, error) {
		if returned.Load() {
			after.Add(1)
		}
		if calls.Add(1) == 500 {
			cancel()
		}
		return unique(z, x, y), nil
	})
	_, err := WritePMTiles(ctx, &bytes.Buffer{}, t.TempDir(), src, Options{MinZoom: 0, MaxZoom: 14, Type: TypePNG, Workers: 4})
	returned.Store(true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if n := calls.Load(); n > 600 {
		t.Fatalf("%d calls after cancelling at 500", n)
	}
	if after.Load() != 0 {
		t.Fatal("the source was called after WritePMTiles returned")
	}
}

// A source error stops the walk and is returned.
func TestPMTilesSourceError(t *testing.T) {
	boom := errors.New("boom")
	src := SourceFunc(func(ctx context.Context, z, x, y int) ([]byte, error) {
		if z == 3 {
			return nil, boom
		}
		return unique(z, x, y), nil
	})
	_, err := WritePMTiles(context.Background(), &bytes.Buffer{}, t.TempDir(), src, Options{MaxZoom: 5, Type: TypePNG})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
}

// A walk that finds nothing writes no PMTiles archive but an empty
// MBTiles file.
func TestEmptyArchives(t *testing.T) {
	src := SourceFunc(func(context.Context, int, int, int) ([]byte, error) { return nil, nil })
	var buf bytes.Buffer
	st, err := WritePMTiles(context.Background(), &buf, t.TempDir(), src, Options{MaxZoom: 5, Type: TypeMVT})
	if !errors.Is(err, ErrEmpty) || buf.Len() != 0 || st.Empty != 1 {
		t.Fatalf("err %v, %d bytes written, stats %+v", err, buf.Len(), st)
	}
	path := t.TempDir() + "/e.mbtiles"
	if st, err := WriteMBTiles(context.Background(), path, src, Options{MaxZoom: 5, Type: TypeMVT}); err != nil || st.Tiles != 0 {
		t.Fatalf("MBTiles: %v, %+v", err, st)
	}
}

// Progress is called with growing counts, an estimate never below them,
// and ends at the tiles visited.
func TestProgress(t *testing.T) {
	src := pyramid(wellington, 12, unique)
	var calls int
	var last [2]int64
	o := Options{MaxZoom: 12, Bounds: wellington, Type: TypePNG, Progress: func(done, estimate int64) {
		if done < last[0] || estimate < done {
			t.Errorf("progress %d of %d after %d", done, estimate, last[0])
		}
		calls++
		last = [2]int64{done, estimate}
	}}
	_, st := write(t, src, o)
	if calls < 13 || last[0] != st.Tiles+st.Empty || last[1] != last[0] {
		t.Fatalf("%d calls, last %v, stats %+v", calls, last, st)
	}
}
