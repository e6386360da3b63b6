package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/bench/benchkit"
)

// postgisQuery is the reference query of the acceptance test: features
// within the radius on geography, nearest first by geography distance.
const postgisQuery = `SELECT fid, attrs, ST_Distance(geog, ST_MakePoint($1, $2)::geography) AS d
	FROM pts WHERE ST_DWithin(geog, ST_MakePoint($1, $2)::geography, $3)
	ORDER BY d LIMIT $4`

// postgisDB is a scratch database holding the layer's points in PostGIS.
type postgisDB struct {
	url  string // of the scratch database
	drop func()
}

// newPostGISDB loads the same points as the layer into a scratch database
// on server, with a GiST index on geography.
func newPostGISDB(ctx context.Context, server string, n int, at area) (*postgisDB, error) {
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("geopub_querybench_%d", os.Getpid())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return nil, err
	}
	db := &postgisDB{drop: func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close()
	}}
	u, err := url.Parse(server)
	if err != nil {
		db.drop()
		return nil, err
	}
	u.Path = "/" + name
	db.url = u.String()
	start := time.Now()
	if err := db.load(ctx, n, at); err != nil {
		db.drop()
		return nil, err
	}
	fmt.Printf("postgis: %d points loaded and indexed in %s\n", n, time.Since(start).Round(time.Millisecond))
	return db, nil
}

func (db *postgisDB) load(ctx context.Context, n int, at area) error {
	conn, err := pgx.Connect(ctx, db.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, s := range []string{
		"CREATE EXTENSION postgis",
		"CREATE TABLE staging (fid bigint, lon float8, lat float8)",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(42, 42))
	i := 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"staging"}, []string{"fid", "lon", "lat"}, pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		i++
		x, y := at.point(rng)
		return []any{int64(i), x, y}, nil
	}))
	if err != nil {
		return err
	}
	for _, s := range []string{
		`CREATE TABLE pts AS SELECT fid, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography AS geog,
			jsonb_build_object('name', 'point ' || fid, 'value', (fid - 1) % 1000) AS attrs FROM staging`,
		"DROP TABLE staging",
		"CREATE INDEX ON pts USING gist (geog)",
		"VACUUM ANALYZE pts",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

func (db *postgisDB) close() { db.drop() }

// pgxTarget queries PostGIS from Go through a pgx pool (extended protocol,
// statements prepared once per connection).
type pgxTarget struct {
	pool   *pgxpool.Pool
	area   area
	radius int
	max    int
}

func newPgxTarget(ctx context.Context, db *postgisDB, at area, radius, maxResults int) (*pgxTarget, error) {
	cfg, err := pgxpool.ParseConfig(db.url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &pgxTarget{pool: pool, area: at, radius: radius, max: maxResults}, nil
}

func (t *pgxTarget) name() string { return "postgis" }

func (t *pgxTarget) run(ctx context.Context, c int, d time.Duration) (benchkit.Stats, error) {
	return benchkit.Load(ctx, t, c, d)
}

func (t *pgxTarget) Do(ctx context.Context, i int) error {
	x, y := t.area.queryPoint(i % nQueries)
	rows, err := t.pool.Query(ctx, postgisQuery, x, y, t.radius, t.max)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var fid int64
		var attrs []byte
		var d float64
		if err := rows.Scan(&fid, &attrs, &d); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (t *pgxTarget) close() { t.pool.Close() }

// pgbenchTarget queries PostGIS with pgbench, PostgreSQL's own load
// client (C, prepared statements): the lightest client PostGIS can have,
// as the wire client is for HTTP. Its script computes the same query
// points as queryPoint.
type pgbenchTarget struct {
	db     *postgisDB
	dir    string
	script string
}

// pgbenchScript picks one of the nQueries query points at random and runs
// postgisQuery on it.
func pgbenchScript(at area, radius, maxResults int) string {
	query := strings.NewReplacer("$1", ":x", "$2", ":y", "$3", strconv.Itoa(radius), "$4", strconv.Itoa(maxResults)).
		Replace(strings.Join(strings.Fields(postgisQuery), " "))
	return fmt.Sprintf("\\set i random(0, %d)\n", nQueries-1) + pointScript(at) + query + ";\n"
}

// pointScript sets :x and :y to query point :i, in queryPoint's arithmetic.
func pointScript(at area) string {
	return fmt.Sprintf("\\set x %g + %g * (double(mod(:i * %d, 4294967296)) / 4294967296)\n"+
		"\\set y %g + %g * (double(mod(:i * %d, 4294967296)) / 4294967296)\n",
		at.west, at.width, r2a, at.south, at.height, r2b)
}

func newPgbenchTarget(db *postgisDB, at area, radius, maxResults int) (*pgbenchTarget, error) {
	dir, err := os.MkdirTemp("", "querybench-pgbench")
	if err != nil {
		return nil, err
	}
	t := &pgbenchTarget{db: db, dir: dir, script: filepath.Join(dir, "query.sql")}
	return t, os.WriteFile(t.script, []byte(pgbenchScript(at, radius, maxResults)), 0o600)
}

func (t *pgbenchTarget) name() string { return "postgis" }

// run runs pgbench with c clients for d (whole seconds) and reads the
// latencies from its per-transaction log.
func (t *pgbenchTarget) run(ctx context.Context, c int, d time.Duration) (benchkit.Stats, error) {
	logs := filepath.Join(t.dir, "log")
	if err := os.RemoveAll(logs); err != nil {
		return benchkit.Stats{}, err
	}
	if err := os.Mkdir(logs, 0o700); err != nil {
		return benchkit.Stats{}, err
	}
	secs := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.CommandContext(ctx, "pgbench", "-n", "-M", "prepared", "-c", strconv.Itoa(c), "-j", strconv.Itoa(min(c, 2)),
		"-T", strconv.Itoa(secs), "-f", t.script, "--log", "--log-prefix", filepath.Join(logs, "tx"), t.db.url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return benchkit.Stats{}, fmt.Errorf("pgbench: %w: %s", err, out)
	}
	lat, err := readPgbenchLogs(logs)
	if err != nil {
		return benchkit.Stats{}, err
	}
	if len(lat) == 0 {
		return benchkit.Stats{}, errors.New("pgbench logged no transactions")
	}
	st, err := benchkit.Measured(lat, time.Duration(secs)*time.Second)
	if err != nil {
		return benchkit.Stats{}, err
	}
	if tps, ok := pgbenchTPS(string(out)); ok {
		st.Rate = tps // pgbench's own figure excludes connection set-up
	}
	return st, nil
}

// readPgbenchLogs reads the latency (third field, µs) of every
// transaction in pgbench's logs.
func readPgbenchLogs(dir string) ([]time.Duration, error) {
	files, err := filepath.Glob(filepath.Join(dir, "tx*"))
	if err != nil {
		return nil, err
	}
	var lat []time.Duration
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 {
				continue
			}
			us, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("pgbench log %s: %q", name, sc.Text())
			}
			lat = append(lat, time.Duration(us)*time.Microsecond)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return lat, nil
}

// pgbenchTPS reads "tps = N (without initial connection time)".
func pgbenchTPS(out string) (float64, bool) {
	for _, l := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(l, "tps = ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		return v, err == nil
	}
	return 0, false
}

func (t *pgbenchTarget) close() { os.RemoveAll(t.dir) }
