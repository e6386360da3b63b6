// Command query measures the vector point query under load: a Geopub
// server (a child process, SQLite by default) with a published layer of
// 1,000,000 points answers radius 1000 m, max_results 10 queries over HTTP
// on loopback at concurrency 1 to 16, beside PostGIS answering the same
// queries (ST_DWithin + ST_Distance on geography, GiST index) through a Go
// client, and beside the same server's /healthz under the same load client
// (the HTTP floor of the machine). It prints throughput and p50/p99
// latency per target and concurrency, and the memory the index took.
//
//	go run ./bench/query [-n 1000000] [-c 1,2,4,8,16] [-d 5s] [-pg URL]
//
// Run it through bench/query/run.sh.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 1_000_000, "points in the layer")
	levels := flag.String("c", "1,2,4,8,16", "concurrency levels")
	dur := flag.Duration("d", 5*time.Second, "duration of each run")
	pg := flag.String("pg", envOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server for the PostGIS runs; empty skips them")
	db := flag.String("db", "", "database of the Geopub server (default: SQLite in a temporary data directory)")
	radius := flag.Int("radius", 1000, "query radius in metres")
	maxResults := flag.Int("max", 10, "max_results")
	netHTTP := flag.Bool("nethttp", false, "load with net/http's client instead of the lighter wire client")
	child := flag.Bool("serve", false, "internal: run the server child")
	dataDir := flag.String("datadir", "", "internal: the child's data directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *child {
		err = serve(ctx, *n, *dataDir, *db)
	} else {
		err = run(ctx, *n, *levels, *dur, *pg, *db, *radius, *maxResults, *netHTTP)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/query:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func run(ctx context.Context, n int, levels string, dur time.Duration, pgURL, dbURL string, radius, maxResults int, netHTTP bool) error {
	var conc []int
	for _, s := range strings.Split(levels, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || c < 1 {
			return fmt.Errorf("bad concurrency %q", s)
		}
		conc = append(conc, c)
	}
	dir, err := os.MkdirTemp("", "querybench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	client := "wire client (persistent connections, pre-encoded requests)"
	if netHTTP {
		client = "net/http client"
	}
	fmt.Printf("bench/query: %d points, radius %d m, max_results %d, %s per run, GOMAXPROCS of the machine, %s\n", n, radius, maxResults, dur, client)
	cmd := exec.CommandContext(ctx, os.Args[0], "-serve", "-n", strconv.Itoa(n), "-datadir", dir, "-db", dbURL)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("the server child did not start: %w", err)
	}
	var info serverInfo
	if err := json.Unmarshal(line, &info); err != nil {
		return err
	}
	fmt.Printf("server: seeded in %s (pid %d, %s)\n", info.SeedSec, cmd.Process.Pid, backendName(dbURL))

	queries := make([][2]float64, 10000)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range queries {
		queries[i][0], queries[i][1] = point(rng)
	}
	before := rssKB(cmd.Process.Pid)
	ours := newHTTPTarget(info, radius, maxResults, queries, netHTTP)
	start := time.Now()
	if err := ours.warm(ctx); err != nil {
		return err
	}
	after := rssKB(cmd.Process.Pid)
	fmt.Printf("index: built on first query in %s; server RSS %d MiB before, %d MiB after (index ≈ %d MiB)\n",
		time.Since(start).Round(time.Millisecond), before/1024, after/1024, (after-before)/1024)

	targets := []target{ours, newHealthTarget(info, netHTTP)}
	if pgURL != "" {
		pt, err := newPostGISTarget(ctx, pgURL, n, radius, maxResults, queries)
		if err != nil {
			return fmt.Errorf("PostGIS: %w", err)
		}
		defer pt.close()
		targets = append(targets, pt)
	}
	results := map[string]map[int]stats{}
	fmt.Printf("\n%-10s %4s %10s %9s %9s\n", "target", "c", "req/s", "p50", "p99")
	for _, t := range targets {
		results[t.name()] = map[int]stats{}
		for _, c := range conc {
			s, err := load(ctx, t, c, dur)
			if err != nil {
				return fmt.Errorf("%s at %d: %w", t.name(), c, err)
			}
			results[t.name()][c] = s
			fmt.Printf("%-10s %4d %10.0f %9s %9s\n", t.name(), c, s.rate, s.p50, s.p99)
		}
	}
	fmt.Printf("\nserver RSS after the runs: %d MiB\n", rssKB(cmd.Process.Pid)/1024)
	if s8, ok := results["vector"][8]; ok {
		fmt.Printf("at concurrency 8: vector p99 %s (target < 5ms)", s8.p99)
		if h, ok := results["healthz"][8]; ok {
			fmt.Printf(", %.2f × the /healthz floor (target ≥ 0.5)", s8.rate/h.rate)
		}
		if p, ok := results["postgis"][8]; ok {
			fmt.Printf(", %.2f × PostGIS (target ≥ 3)", s8.rate/p.rate)
		}
		fmt.Println()
	}
	return nil
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
