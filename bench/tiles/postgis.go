package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/vectortiles"
)

// postgis is a scratch PostGIS database holding the same layers as
// tables points and polygons (geometry in EPSG:4326 with a GiST index),
// which MapServer also serves.
type postgis struct {
	url  string
	pool *pgxpool.Pool
	drop func()
}

// newPostGIS creates and loads the scratch database on server; conns
// bounds the pool the tile queries run on.
func newPostGIS(ctx context.Context, server string, nPoints, nPolygons, conns int) (*postgis, error) {
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("geopub_bench_tiles_postgis_%d", os.Getpid())
	if err := benchkit.Scratch(ctx, admin, server, name, "CREATE EXTENSION postgis"); err != nil {
		admin.Close()
		return nil, err
	}
	p := &postgis{url: benchkit.WithDatabase(server, name), drop: func() { benchkit.Drop(admin, name); admin.Close() }}
	start := time.Now()
	if err := p.load(ctx, nPoints, nPolygons); err != nil {
		p.drop()
		return nil, err
	}
	fmt.Printf("PostGIS: loaded and indexed in %s\n", time.Since(start).Round(time.Millisecond))
	cfg, err := pgxpool.ParseConfig(p.url)
	if err != nil {
		p.drop()
		return nil, err
	}
	cfg.MaxConns, cfg.MinConns = int32(conns), int32(conns)
	if p.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		p.drop()
		return nil, err
	}
	return p, nil
}

func (p *postgis) close() {
	if p.pool != nil {
		p.pool.Close()
	}
	p.drop()
}

// load copies the generated features into staging tables and makes the
// layer tables of them.
func (p *postgis) load(ctx context.Context, nPoints, nPolygons int) error {
	conn, err := pgx.Connect(ctx, p.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	g := benchkit.NewGenerator()
	for _, l := range []struct {
		table, geomType string
		n               int
		gen             func(int, func(benchkit.Feature) error) error
	}{{"points", "Point", nPoints, g.Points}, {"polygons", "Polygon", nPolygons, g.Polygons}} {
		staging := l.table + "_staging"
		if _, err := conn.Exec(ctx, "CREATE UNLOGGED TABLE "+staging+
			" (fid bigint, id bigint, name text, category text, value float8, surveyed date, active boolean, wkb bytea)"); err != nil {
			return err
		}
		cols := []string{"fid", "id", "name", "category", "value", "surveyed", "active", "wkb"}
		var rows [][]any
		flush := func() error {
			_, err := conn.CopyFrom(ctx, pgx.Identifier{staging}, cols, pgx.CopyFromRows(rows))
			rows = rows[:0]
			return err
		}
		if err := l.gen(l.n, func(f benchkit.Feature) error {
			a := f.Attrs
			rows = append(rows, []any{f.FID, a["id"], a["name"], a["category"], a["value"], a["surveyed"], a["active"], f.WKB})
			if len(rows) == 50000 {
				return flush()
			}
			return nil
		}); err != nil {
			return fmt.Errorf("copying %s: %w", l.table, err)
		}
		if err := flush(); err != nil {
			return fmt.Errorf("copying %s: %w", l.table, err)
		}
		for _, s := range []string{
			fmt.Sprintf(`CREATE TABLE %s AS SELECT fid, id, name, category, value, surveyed, active,
				ST_GeomFromWKB(wkb, 4326)::geometry(%s, 4326) AS geom FROM %s`, l.table, l.geomType, staging),
			"DROP TABLE " + staging,
			"ALTER TABLE " + l.table + " ADD PRIMARY KEY (fid)",
			"CREATE INDEX ON " + l.table + " USING gist (geom)",
			// As autovacuum would soon after (and otherwise does during
			// the runs that follow).
			"VACUUM (ANALYZE) " + l.table,
		} {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
	}
	return nil
}

// peerTileQuery is the usual ST_AsMVT tile query (as pg_tileserv and
// Martin write it): the features whose box meets the buffered tile, by
// the GiST index, projected to Web Mercator and clipped, snapped and
// encoded by ST_AsMVTGeom/ST_AsMVT with the same extent, buffer and
// attributes as Geopub's tiles. %s is the table.
const peerTileQuery = `SELECT ST_AsMVT(t, 'layer', 4096, 'geom', 'fid') FROM (
	SELECT fid, id, name, category, value, surveyed, active,
		ST_AsMVTGeom(ST_Transform(geom, 3857), ST_TileEnvelope($1, $2, $3), 4096, 64, true) AS geom
	FROM %s WHERE geom && ST_Transform(ST_TileEnvelope($1, $2, $3, margin => 64.0 / 4096), 4326)
) t`

// tileRequester asks PostGIS for the tiles of list, in turn, from the
// pool; bytes counts what it answered.
func (p *postgis) tileRequester(table string, list []vectortiles.Tile, bytes *atomic.Int64) benchkit.Requester {
	q := fmt.Sprintf(peerTileQuery, table)
	return benchkit.RequesterFunc(func(ctx context.Context, i int) error {
		t := list[i%len(list)]
		var out []byte
		if err := p.pool.QueryRow(ctx, q, t.Z, t.X, t.Y).Scan(&out); err != nil {
			return fmt.Errorf("PostGIS tile %s of %s: %w", t, table, err)
		}
		bytes.Add(int64(len(out)))
		return nil
	})
}
