package tilearchive

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"io"
	"testing"
)

// archive is a PMTiles archive read back in Go, for tests: the header
// fields, the metadata and every tile by ID.
type archive struct {
	raw         []byte
	h           header
	meta        map[string]any
	tiles       map[uint64][]byte
	entries     int
	leaves      int
	leafEntries int
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readArchive(t testing.TB, b []byte) *archive {
	t.Helper()
	if len(b) < headerLen || string(b[:7]) != "PMTiles" || b[7] != 3 {
		t.Fatalf("not a PMTiles v3 archive: % x", b[:min(len(b), 8)])
	}
	a := &archive{raw: b, tiles: map[uint64][]byte{}}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[8+8*i:]) }
	a.h = header{rootOffset: u(0), rootLength: u(1), metadataOffset: u(2), metadataLength: u(3),
		leavesOffset: u(4), leavesLength: u(5), dataOffset: u(6), dataLength: u(7),
		addressed: u(8), tileEntries: u(9), contents: u(10),
		clustered: b[96] == 1, internal: b[97], tileCompression: b[98], tileType: b[99],
		minZoom: b[100], maxZoom: b[101], centerZoom: b[118]}
	pos := func(o int) (float64, float64) {
		return float64(int32(binary.LittleEndian.Uint32(b[o:]))) / 1e7, float64(int32(binary.LittleEndian.Uint32(b[o+4:]))) / 1e7
	}
	a.h.bounds[0], a.h.bounds[1] = pos(102)
	a.h.bounds[2], a.h.bounds[3] = pos(110)
	a.h.center[0], a.h.center[1] = pos(119)
	if a.h.rootOffset+a.h.rootLength > 16384 {
		t.Fatalf("root directory ends at %d, beyond 16 KiB", a.h.rootOffset+a.h.rootLength)
	}
	if err := json.Unmarshal(gunzip(t, b[a.h.metadataOffset:a.h.metadataOffset+a.h.metadataLength]), &a.meta); err != nil {
		t.Fatal(err)
	}
	a.readDir(t, b[a.h.rootOffset:a.h.rootOffset+a.h.rootLength], true)
	return a
}

func (a *archive) readDir(t testing.TB, comp []byte, root bool) {
	es, err := decodeDirectory(gunzip(t, comp))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.RunLength == 0 {
			if !root {
				t.Fatal("a leaf directory points at a leaf")
			}
			a.leaves++
			o := a.h.leavesOffset + e.Offset
			a.readDir(t, a.raw[o:o+uint64(e.Length)], false)
			continue
		}
		if !root {
			a.leafEntries++
		}
		a.entries++
		o := a.h.dataOffset + e.Offset
		for i := range uint64(e.RunLength) {
			a.tiles[e.TileID+i] = a.raw[o : o+uint64(e.Length)]
		}
	}
}
