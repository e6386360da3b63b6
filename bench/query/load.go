package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// target is something the load client queries.
type target interface {
	name() string
	// do runs one request; i picks the query point.
	do(ctx context.Context, i int) error
}

type stats struct {
	rate     float64
	p50, p99 time.Duration
}

// load runs c workers against t for d and measures them.
func load(ctx context.Context, t target, c int, d time.Duration) (stats, error) {
	var (
		mu    sync.Mutex
		lat   []time.Duration
		next  atomic.Int64
		first error
		wg    sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := t.do(ctx, int(next.Add(1))); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if first != nil {
		return stats{}, first
	}
	elapsed := time.Since(start)
	slices.Sort(lat)
	if len(lat) == 0 {
		return stats{}, fmt.Errorf("no requests finished")
	}
	pct := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(float64(len(lat))*p))].Round(10 * time.Microsecond)
	}
	return stats{rate: float64(len(lat)) / elapsed.Seconds(), p50: pct(0.50), p99: pct(0.99)}, nil
}

// httpTarget queries the vector API (or /healthz) over HTTP on loopback,
// with the wire client (default) or net/http's.
type httpTarget struct {
	wire    *wireClient
	reqs    [][]byte // pre-encoded requests for the wire client
	client  *http.Client
	urls    []string
	label   string
	checked atomic.Bool
}

func newTarget(label, addr string, paths []string, netHTTP bool) *httpTarget {
	t := &httpTarget{label: label}
	if netHTTP {
		t.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxIdleConns: 64}, Timeout: 10 * time.Second}
		for _, p := range paths {
			t.urls = append(t.urls, "http://"+addr+p)
		}
		return t
	}
	t.wire = newWireClient(addr)
	for _, p := range paths {
		t.reqs = append(t.reqs, t.wire.request(p))
	}
	return t
}

func newHTTPTarget(info serverInfo, radius, maxResults int, queries [][2]float64, netHTTP bool) *httpTarget {
	var paths []string
	for _, q := range queries {
		v := url.Values{"key": {info.Key}, "layer": {fmt.Sprint(info.Layer)}, "x": {fmt.Sprint(q[0])}, "y": {fmt.Sprint(q[1])},
			"radius": {fmt.Sprint(radius)}, "max_results": {fmt.Sprint(maxResults)}}
		paths = append(paths, "/services/query/v1/vector.json?"+v.Encode())
	}
	return newTarget("vector", info.Addr, paths, netHTTP)
}

func newHealthTarget(info serverInfo, netHTTP bool) *httpTarget {
	return newTarget("healthz", info.Addr, []string{"/healthz"}, netHTTP)
}

func (t *httpTarget) name() string { return t.label }

func (t *httpTarget) do(ctx context.Context, i int) error {
	var status int
	var body []byte
	var err error
	if t.wire != nil {
		status, body, err = t.wire.do(ctx, t.reqs[i%len(t.reqs)])
	} else {
		status, body, err = t.netHTTP(ctx, t.urls[i%len(t.urls)])
	}
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("status %d: %s", status, body)
	}
	if t.label == "vector" && !t.checked.Swap(true) && len(body) < 40 {
		return fmt.Errorf("unexpected answer %s", body)
	}
	return nil
}

func (t *httpTarget) netHTTP(ctx context.Context, u string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// warm sends the first query, which builds the index.
func (t *httpTarget) warm(ctx context.Context) error { return t.do(ctx, 0) }

// postgisTarget runs the same queries in PostGIS.
type postgisTarget struct {
	pool    *pgxpool.Pool
	queries [][2]float64
	radius  int
	max     int
	drop    func()
}

func (t *postgisTarget) name() string { return "postgis" }

const postgisQuery = `SELECT fid, attrs, ST_Distance(geog, ST_MakePoint($1, $2)::geography) AS d
	FROM pts WHERE ST_DWithin(geog, ST_MakePoint($1, $2)::geography, $3)
	ORDER BY d LIMIT $4`

func (t *postgisTarget) do(ctx context.Context, i int) error {
	q := t.queries[i%len(t.queries)]
	rows, err := t.pool.Query(ctx, postgisQuery, q[0], q[1], t.radius, t.max)
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

func (t *postgisTarget) close() { t.pool.Close(); t.drop() }

// newPostGISTarget loads the same points into a scratch PostGIS database.
func newPostGISTarget(ctx context.Context, server string, n, radius, maxResults int, queries [][2]float64) (*postgisTarget, error) {
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("geopub_querybench_%d", os.Getpid())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return nil, err
	}
	drop := func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close()
	}
	u, err := url.Parse(server)
	if err != nil {
		drop()
		return nil, err
	}
	u.Path = "/" + name
	start := time.Now()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		drop()
		return nil, err
	}
	defer conn.Close(ctx)
	for _, s := range []string{
		"CREATE EXTENSION postgis",
		"CREATE TABLE staging (fid bigint, lon float8, lat float8)",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			drop()
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(42, 42))
	i := 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"staging"}, []string{"fid", "lon", "lat"}, pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		i++
		x, y := point(rng)
		return []any{int64(i), x, y}, nil
	}))
	if err != nil {
		drop()
		return nil, err
	}
	for _, s := range []string{
		`CREATE TABLE pts AS SELECT fid, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography AS geog,
			jsonb_build_object('name', 'point ' || fid, 'value', (fid - 1) % 1000) AS attrs FROM staging`,
		"CREATE INDEX ON pts USING gist (geog)",
		"ANALYZE pts",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			drop()
			return nil, err
		}
	}
	fmt.Printf("postgis: %d points loaded and indexed in %s\n", n, time.Since(start).Round(time.Millisecond))
	cfg, err := pgxpool.ParseConfig(u.String())
	if err != nil {
		drop()
		return nil, err
	}
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		drop()
		return nil, err
	}
	return &postgisTarget{pool: pool, queries: queries, radius: radius, max: maxResults, drop: drop}, nil
}
