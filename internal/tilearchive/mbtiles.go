package tilearchive

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// mbtilesBatch is how many tiles one transaction writes.
const mbtilesBatch = 2000

// mbtilesFormat is the metadata format of a tile type.
func mbtilesFormat(t TileType) string {
	if t == TypeMVT {
		return "pbf"
	}
	return string(t)
}

// WriteMBTiles walks src as o says and writes an MBTiles 1.3 file at
// path (which must not exist): a SQLite database with the metadata
// table and the tiles as a view over deduplicated images (TMS rows,
// y flipped). MVT tiles are stored gzip-compressed, as MBTiles wants.
// On error the file is removed.
func WriteMBTiles(ctx context.Context, path string, src Source, o Options) (st Stats, err error) {
	box, err := checkOptions(o)
	if err != nil {
		return Stats{}, err
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return Stats{}, fmt.Errorf("tilearchive: %s exists already", path)
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=journal_mode(DELETE)&_pragma=synchronous(OFF)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return Stats{}, err
	}
	db.SetMaxOpenConns(1)
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
			_ = os.Remove(path + "-journal")
		}
	}()
	for _, q := range []string{
		`CREATE TABLE metadata (name TEXT, value TEXT)`,
		`CREATE UNIQUE INDEX metadata_name ON metadata (name)`,
		`CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT)`,
		`CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row)`,
		`CREATE TABLE images (tile_id TEXT, tile_data BLOB)`,
		`CREATE UNIQUE INDEX images_id ON images (tile_id)`,
		`CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
			map.tile_row AS tile_row, images.tile_data AS tile_data
			FROM map JOIN images ON images.tile_id = map.tile_id`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return Stats{}, fmt.Errorf("tilearchive: %s: %w", path, err)
		}
	}

	st = Stats{Bounds: box, MinZoom: -1, MaxZoom: -1}
	gz := o.Type == TypeMVT && !o.Compressed
	seen := map[digest]bool{}
	var tx *sql.Tx
	var inTx int
	commit := func() error {
		if tx == nil {
			return nil
		}
		err := tx.Commit()
		tx, inTx = nil, 0
		return err
	}
	defer func() {
		if tx != nil {
			_ = tx.Rollback()
		}
	}()
	empty, err := walk(ctx, src, o, box, func(t *tile) error {
		st.Tiles++
		if st.MinZoom < 0 {
			st.MinZoom = t.z
		}
		st.MaxZoom = t.z
		if o.MaxTiles > 0 && st.Tiles > o.MaxTiles {
			return tooLarge("more than %d tiles", o.MaxTiles)
		}
		if tx == nil {
			var err error
			if tx, err = db.BeginTx(ctx, nil); err != nil {
				return err
			}
		}
		id := hex.EncodeToString(t.sum[:])
		if !seen[t.sum] {
			data := t.data
			if gz {
				var err error
				if data, err = gzipBytes(data); err != nil {
					return err
				}
			}
			if o.MaxBytes > 0 && st.Bytes+int64(len(data)) > o.MaxBytes {
				return tooLarge("more than %d bytes of tiles", o.MaxBytes)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO images (tile_id, tile_data) VALUES (?, ?)`, id, data); err != nil {
				return err
			}
			seen[t.sum] = true
			st.Unique++
			st.Bytes += int64(len(data))
		}
		row := (1 << t.z) - 1 - t.y
		if _, err := tx.ExecContext(ctx, `INSERT INTO map (zoom_level, tile_column, tile_row, tile_id) VALUES (?, ?, ?, ?)`,
			t.z, t.x, row, id); err != nil {
			return err
		}
		if inTx++; inTx >= mbtilesBatch {
			return commit()
		}
		return nil
	})
	st.Empty = empty
	if err != nil {
		return st, err
	}
	if err := commit(); err != nil {
		return st, err
	}
	if st.MinZoom < 0 {
		st.MinZoom, st.MaxZoom = o.MinZoom, o.MaxZoom
	}
	meta, err := mbtilesMetadata(o, box)
	if err != nil {
		return st, err
	}
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		return st, err
	}
	for _, kv := range meta {
		if _, err := tx.ExecContext(ctx, `INSERT INTO metadata (name, value) VALUES (?, ?)`, kv[0], kv[1]); err != nil {
			return st, err
		}
	}
	if err := commit(); err != nil {
		return st, err
	}
	return st, nil
}

// mbtilesMetadata is the metadata table's rows.
func mbtilesMetadata(o Options, box [4]float64) ([][2]string, error) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	c, cz := center(box, o.MinZoom, o.MaxZoom)
	name := o.Name
	if name == "" {
		name = "tiles"
	}
	rows := [][2]string{
		{"name", name},
		{"format", mbtilesFormat(o.Type)},
		{"bounds", f(box[0]) + "," + f(box[1]) + "," + f(box[2]) + "," + f(box[3])},
		{"center", f(c[0]) + "," + f(c[1]) + "," + strconv.Itoa(int(cz))},
		{"minzoom", strconv.Itoa(o.MinZoom)},
		{"maxzoom", strconv.Itoa(o.MaxZoom)},
		{"type", "overlay"},
		{"version", "1.3"},
	}
	if o.Description != "" {
		rows = append(rows, [2]string{"description", o.Description})
	}
	if o.Attribution != "" {
		rows = append(rows, [2]string{"attribution", o.Attribution})
	}
	extra := map[string]any{}
	for k, v := range o.Metadata {
		extra[k] = v
	}
	if _, ok := extra["vector_layers"]; !ok && o.Type == TypeMVT {
		extra["vector_layers"] = []any{}
	}
	if len(extra) > 0 {
		b, err := json.Marshal(extra)
		if err != nil {
			return nil, fmt.Errorf("tilearchive: metadata: %w", err)
		}
		rows = append(rows, [2]string{"json", string(b)})
	}
	return rows, nil
}
