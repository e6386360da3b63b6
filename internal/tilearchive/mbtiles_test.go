package tilearchive

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// The MBTiles file holds every tile with TMS rows, deduplicated images,
// and the metadata MBTiles 1.3 asks for.
func TestMBTilesHoldsTheSourceTiles(t *testing.T) {
	src := pyramid(wellington, 10, func(z, x, y int) []byte {
		if z == 10 {
			return []byte("same")
		}
		return unique(z, x, y)
	})
	path := filepath.Join(t.TempDir(), "w.mbtiles")
	st, err := WriteMBTiles(context.Background(), path, src, Options{MinZoom: 0, MaxZoom: 10, Bounds: wellington,
		Type: TypeMVT, Name: "w", Attribution: "a", Metadata: map[string]any{"vector_layers": []any{map[string]any{"id": "layer-1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var z, x, row int
		var data []byte
		if err := rows.Scan(&z, &x, &row, &data); err != nil {
			t.Fatal(err)
		}
		want := src.tiles[[3]int{z, x, 1<<z - 1 - row}]
		if got := gunzip(t, data); want == nil || !bytes.Equal(got, want) {
			t.Fatalf("tile %d/%d/%d (TMS row %d): %q, want %q", z, x, 1<<z-1-row, row, got, want)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(src.tiles) || st.Tiles != int64(n) {
		t.Fatalf("%d tiles (stats %d), want %d", n, st.Tiles, len(src.tiles))
	}
	var images int64
	if err := db.QueryRow(`SELECT count(*) FROM images`).Scan(&images); err != nil {
		t.Fatal(err)
	}
	if images != st.Unique || images >= int64(n) {
		t.Fatalf("%d images, %d unique, %d tiles", images, st.Unique, n)
	}
	meta := map[string]string{}
	mr, err := db.Query(`SELECT name, value FROM metadata`)
	if err != nil {
		t.Fatal(err)
	}
	for mr.Next() {
		var k, v string
		if err := mr.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		meta[k] = v
	}
	for k, want := range map[string]string{"name": "w", "format": "pbf", "minzoom": "0", "maxzoom": "10",
		"bounds": "174.6,-41.4,175.1,-41.05", "type": "overlay", "attribution": "a",
		"json": `{"vector_layers":[{"id":"layer-1"}]}`} {
		if meta[k] != want {
			t.Errorf("metadata %s = %q, want %q", k, meta[k], want)
		}
	}
}

// MBTiles limits and a failed walk leave no file behind.
func TestMBTilesTooLarge(t *testing.T) {
	src := pyramid(wellington, 10, unique)
	path := filepath.Join(t.TempDir(), "w.mbtiles")
	_, err := WriteMBTiles(context.Background(), path, src, Options{MaxZoom: 10, Bounds: wellington, Type: TypePNG, MaxTiles: 5})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
	if matches, _ := filepath.Glob(path + "*"); len(matches) != 0 {
		t.Fatalf("left %v", matches)
	}
}
