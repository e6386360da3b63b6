// Command boxindex times the feature box lookups with and without the
// spatial index on the same store (internal/featurerows.BoxWhere, and for
// items pages BoxSelective's choice, against the query every box lookup
// ran before the index; that query's B-tree (version_id, minx, miny) is
// gone, so its column is a scan of the version; RESULTS.md has the
// figures of the old schema too):
// bench/benchkit's points written by featurerows.Writer into a SQLite store
// and a PostgreSQL scratch database, then a z14 tile's candidates, a z8
// tile's, an OGC API items page (100 rows in fid order) over a 0.1° box
// and over the whole layer, each the median of a few runs, with the plans
// (EXPLAIN ANALYZE on PostgreSQL).
//
//	go run ./bench/boxindex [-n 1000000] [-work DIR] [-pg URL]
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/vectortiles"
)

func main() {
	n := flag.Int("n", 1_000_000, "points to write")
	work := flag.String("work", "", "SQLite data directory (default: a temporary one, removed after)")
	pg := flag.String("pg", benchkit.EnvOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL; empty skips PostgreSQL")
	runs := flag.Int("runs", 5, "runs of each query (the median is printed)")
	flag.Parse()
	if err := run(context.Background(), *n, *work, *pg, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench/boxindex:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n int, work, pg string, runs int) error {
	if work == "" {
		d, err := os.MkdirTemp("", "boxindex")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	cfgs := []store.Config{{DataDir: work}}
	if pg != "" {
		admin, err := sql.Open("pgx", pg)
		if err != nil {
			return err
		}
		defer admin.Close()
		db := fmt.Sprintf("geopub_boxindex_%d", time.Now().UnixNano())
		if err := benchkit.Scratch(ctx, admin, pg, db, ""); err != nil {
			return err
		}
		defer benchkit.Drop(admin, db)
		cfgs = append(cfgs, store.Config{DatabaseURL: benchkit.WithDatabase(pg, db)})
	}
	for _, cfg := range cfgs {
		if err := measure(ctx, cfg, n, runs); err != nil {
			return err
		}
	}
	return nil
}

// lookup is one measured query: a set of boxes and an optional LIMIT.
type lookup struct {
	name  string
	boxes []featurerows.Box
	limit int
}

func measure(ctx context.Context, cfg store.Config, n, runs int) error {
	st, err := store.OpenAndMigrate(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	const version = 1
	start := time.Now()
	if err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := featurerows.NewWriter(ctx, st, tx, version)
		if err != nil {
			return err
		}
		if err := benchkit.NewGenerator().Points(n, func(f benchkit.Feature) error {
			return w.Write(featurerows.Row{FID: f.FID, Geom: f.WKB, Attrs: f.Attrs})
		}); err != nil {
			return err
		}
		_, err = w.Close()
		return err
	}); err != nil {
		return err
	}
	fmt.Printf("\n== %s: wrote %d points in %.2f s\n", st.Dialect, n, time.Since(start).Seconds())
	if st.Dialect == "postgres" {
		if _, err := st.DB.ExecContext(ctx, "ANALYZE features"); err != nil {
			return err
		}
	}
	// Wellington's tiles.
	z14 := vectortiles.Tile{Z: 14, X: 16146, Y: 10259}.Envelope(vectortiles.Buffer)
	z8 := vectortiles.Tile{Z: 8, X: 252, Y: 160}.Envelope(vectortiles.Buffer)
	lookups := []lookup{
		{"z14 tile", []featurerows.Box{z14}, 0},
		{"z8 tile", []featurerows.Box{z8}, 0},
		{"items, 0.1° box", []featurerows.Box{{174.7, -41.35, 174.8, -41.25}}, 101},
		{"items, whole layer", []featurerows.Box{{benchkit.MinLon, benchkit.MinLat, benchkit.MaxLon, benchkit.MaxLat}}, 101},
	}
	fmt.Printf("%-20s %8s %12s %12s %8s\n", "lookup", "rows", "old SQL ms", "index ms", "plan")
	for _, l := range lookups {
		b := l.boxes[0]
		oldW, oldA := beforeWhere, []any{version, b[2], b[0], b[3], b[1]}
		idxW, idxA := featurerows.BoxWhere(st.Dialect, version, l.boxes...)
		rows, old, err := timeQuery(ctx, st, oldW, oldA, l.limit, runs)
		if err != nil {
			return err
		}
		rows2, idx, err := timeQuery(ctx, st, idxW, idxA, l.limit, runs)
		if err != nil {
			return err
		}
		chosen := "index"
		if l.limit > 0 {
			// Items pages: BoxSelective chooses, timed with the query.
			start := time.Now()
			sel, err := featurerows.BoxSelective(ctx, st, version, l.boxes...)
			if err != nil {
				return err
			}
			choose := time.Since(start)
			if !sel {
				chosen = "fid walk"
				idxW, idxA = featurerows.BoxScanWhere(version, l.boxes...)
				if rows2, idx, err = timeQuery(ctx, st, idxW, idxA, l.limit, runs); err != nil {
					return err
				}
			} else {
				idxW = "MATERIALIZED:" + idxW
				if rows2, idx, err = timeQuery(ctx, st, idxW, idxA, l.limit, runs); err != nil {
					return err
				}
			}
			idx += choose
		}
		if rows != rows2 {
			return fmt.Errorf("%s: the query before the index found %d rows, after %d", l.name, rows, rows2)
		}
		fmt.Printf("%-20s %8d %12.2f %12.2f %8s\n", l.name, rows, ms(old), ms(idx), chosen)
		if st.Dialect == "postgres" {
			for _, w := range []struct {
				where string
				args  []any
			}{{oldW, oldA}, {idxW, idxA}} {
				plan, err := explain(ctx, st, w.where, w.args, l.limit)
				if err != nil {
					return err
				}
				fmt.Println(plan)
			}
		}
	}
	return nil
}

// beforeWhere is the box lookup every query ran before the spatial index.
const beforeWhere = "version_id = ? AND minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?"

// query is a lookup's SQL, as the tiles and items pages read; a where
// prefixed "MATERIALIZED:" is read as internal/ogcfeatures does when the
// index leads a page.
func query(st *store.Store, where string, limit int) string {
	q := "SELECT fid, geom, attrs FROM features WHERE " + where + " ORDER BY fid, id"
	if w, ok := strings.CutPrefix(where, "MATERIALIZED:"); ok {
		q = "WITH c AS MATERIALIZED (SELECT fid, id, geom, attrs FROM features WHERE " + w + ") SELECT fid, geom, attrs FROM c ORDER BY fid, id"
	}
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	return store.Rebind(q, st.Dialect == "postgres")
}

// timeQuery runs a lookup runs times, reading every row, and returns the
// rows and the median time.
func timeQuery(ctx context.Context, st *store.Store, where string, args []any, limit, runs int) (int, time.Duration, error) {
	var times []time.Duration
	n := 0
	for range runs {
		start := time.Now()
		rows, err := st.DB.QueryContext(ctx, query(st, where, limit), args...)
		if err != nil {
			return 0, 0, err
		}
		n = 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, 0, err
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return n, times[len(times)/2], nil
}

// explain returns PostgreSQL's EXPLAIN ANALYZE of a lookup, indented.
func explain(ctx context.Context, st *store.Store, where string, args []any, limit int) (string, error) {
	rows, err := st.DB.QueryContext(ctx, "EXPLAIN (ANALYZE, BUFFERS OFF) "+query(st, where, limit), args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		b.WriteString("    " + line + "\n")
	}
	return b.String(), rows.Err()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
