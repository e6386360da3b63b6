// Command query measures the vector point query under load: a Geopub
// server (a child process, SQLite by default) with a published layer of
// 1,000,000 points answers radius 1000 m, max_results 10 queries over HTTP
// on loopback at concurrency 1 to 16, beside PostGIS answering the same
// queries (ST_DWithin + ST_Distance on geography, GiST index) through
// pgbench (or a Go client), and beside the same server's /healthz under the
// same load client (the HTTP floor of the machine). Targets run in
// interleaved rounds, so that the machine's drift touches all of them. It
// prints throughput and p50/p99 latency per run, their medians, and the
// memory the index took.
//
//	go run ./bench/query [-n 1000000] [-c 1,2,4,8,16] [-d 5s] [-rounds 3] [-pg URL] [-pgclient pgbench|pgx]
//
// Run it through bench/query/run.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
)

func main() {
	n := flag.Int("n", 1_000_000, "points in the layer")
	levels := flag.String("c", "1,2,4,8,16", "concurrency levels")
	dur := flag.Duration("d", 5*time.Second, "duration of each run")
	pg := flag.String("pg", envOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server for the PostGIS runs; empty skips them")
	db := flag.String("db", "", "database of the Geopub server (default: SQLite in a temporary data directory)")
	radius := flag.Int("radius", 1000, "query radius in metres")
	maxResults := flag.Int("max", 10, "max_results")
	rounds := flag.Int("rounds", 3, "rounds; each runs every target at every concurrency, so that drift in the machine's speed touches all targets alike")
	pgClient := flag.String("pgclient", "pgbench", "PostGIS load client: pgbench or pgx")
	netHTTP := flag.Bool("nethttp", false, "load with net/http's client instead of the lighter wire client")
	areaName := flag.String("area", "nz", "the box of the points: nz (sparse, 2 points within the radius) or region (dense, 80)")
	limits := flag.String("rate-limits", "", "rate limits (--rate-limits syntax, e.g. queries=1000000000/1h) of a second server over the same store, loaded as the target \"limited\" beside \"vector\"")
	child := flag.Bool("serve", false, "internal: run the server child")
	dataDir := flag.String("datadir", "", "internal: the child's data directory")
	flag.Parse()
	if _, ok := areas[*areaName]; !ok {
		fmt.Fprintf(os.Stderr, "bench/query: unknown -area %q: nz or region\n", *areaName)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *child {
		err = serve(ctx, *n, *dataDir, *db, areas[*areaName], *limits)
	} else {
		err = run(ctx, options{area: areas[*areaName], areaName: *areaName, n: *n, levels: *levels, dur: *dur, rounds: *rounds, pg: *pg, pgClient: *pgClient,
			db: *db, radius: *radius, maxResults: *maxResults, netHTTP: *netHTTP, limits: *limits})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/query:", err)
		os.Exit(1)
	}
}

// options are the parent's flags.
type options struct {
	n, rounds, radius, maxResults int
	levels, pg, pgClient, db      string
	limits                        string
	area                          area
	areaName                      string
	dur                           time.Duration
	netHTTP                       bool
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func run(ctx context.Context, o options) error {
	var conc []int
	for _, s := range strings.Split(o.levels, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || c < 1 {
			return fmt.Errorf("bad concurrency %q", s)
		}
		conc = append(conc, c)
	}
	if o.rounds < 1 {
		return fmt.Errorf("bad -rounds %d", o.rounds)
	}
	dir, err := os.MkdirTemp("", "querybench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	client := "wire client (persistent connections, pre-encoded requests)"
	if o.netHTTP {
		client = "net/http client"
	}
	fmt.Printf("bench/query: %d points over the %s area, radius %d m, max_results %d, %d interleaved rounds of %s per target and concurrency, HTTP through the %s\n",
		o.n, o.areaName, o.radius, o.maxResults, o.rounds, o.dur, client)
	var info serverInfo
	pid, stop, err := benchkit.StartChild(ctx, &info, "-serve", "-n", strconv.Itoa(o.n), "-area", o.areaName, "-datadir", dir, "-db", o.db,
		"-rate-limits", o.limits)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("server: seeded in %s (pid %d, %s)\n", info.SeedSec, pid, backendName(o.db))

	before := rssKB(pid)
	ours := newHTTPTarget(info, o.area, o.radius, o.maxResults, o.netHTTP)
	start := time.Now()
	if err := ours.warm(ctx); err != nil {
		return err
	}
	after := rssKB(pid)
	fmt.Printf("index: built on first query in %s; server RSS %d MiB before, %d MiB after (index ≈ %d MiB)\n",
		time.Since(start).Round(time.Millisecond), before/1024, after/1024, (after-before)/1024)

	targets := []target{ours, newHealthTarget(info, o.netHTTP)}
	if info.LimitedAddr != "" {
		limited := newTarget("limited", info.LimitedAddr, vectorPaths(info, o.area, o.radius, o.maxResults), o.netHTTP)
		if err := limited.warm(ctx); err != nil {
			return err
		}
		fmt.Printf("limited: a second server over the same store with --rate-limits %s\n", o.limits)
		targets = append(targets, limited)
	}
	if o.pg != "" {
		pt, closePG, err := postgisTarget(ctx, o)
		if err != nil {
			return fmt.Errorf("PostGIS: %w", err)
		}
		defer closePG()
		targets = append(targets, pt)
	}
	m, err := measure(ctx, targets, conc, o)
	if err != nil {
		return err
	}
	fmt.Printf("\nserver RSS after the runs: %d MiB\n", rssKB(pid)/1024)
	m.summary(conc, o.rounds)
	return nil
}

// postgisTarget loads the points into a scratch PostGIS database and
// returns the client o asks for; pgbench falls back to pgx when it is not
// installed.
func postgisTarget(ctx context.Context, o options) (target, func(), error) {
	db, err := newPostGISDB(ctx, o.pg, o.n, o.area)
	if err != nil {
		return nil, nil, err
	}
	client := o.pgClient
	if _, err := exec.LookPath("pgbench"); client == "pgbench" && err != nil {
		fmt.Println("postgis: pgbench is not installed; querying through pgx instead")
		client = "pgx"
	}
	switch client {
	case "pgbench":
		t, err := newPgbenchTarget(db, o.area, o.radius, o.maxResults)
		if err != nil {
			db.close()
			return nil, nil, err
		}
		fmt.Println("postgis: queried through pgbench (prepared statements)")
		return t, func() { t.close(); db.close() }, nil
	case "pgx":
		t, err := newPgxTarget(ctx, db, o.area, o.radius, o.maxResults)
		if err != nil {
			db.close()
			return nil, nil, err
		}
		fmt.Println("postgis: queried through a pgx pool")
		return t, func() { t.close(); db.close() }, nil
	}
	db.close()
	return nil, nil, fmt.Errorf("unknown -pgclient %q: pgbench or pgx", client)
}

func backendName(db string) string {
	if db == "" {
		return "SQLite"
	}
	return "PostgreSQL"
}

// rssKB reads a process's resident set size.
func rssKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				n, _ := strconv.Atoi(f[1])
				return n
			}
		}
	}
	return 0
}
