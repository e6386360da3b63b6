// Command mixload drives issue 24's mixed load at a Geopub server: c
// clients for d, two thirds reading OGC API Features items pages with a
// random bbox over a published layer of n points, one third posting
// comments (a write each), while /readyz is polled every 200 ms. It prints,
// per store, requests per second, the reads served and refused as busy
// (503 with Retry-After), the comments written, latency percentiles per
// kind and every readiness failure.
//
// The server is a child process (so the load client does not share its
// Go runtime) on a fresh SQLite data directory, and on a scratch
// PostgreSQL database when -pg names a server.
//
//	bash bench/mixload/run.sh [-n 400000] [-c 150] [-d 60s] [-pg URL]
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	_ "github.com/jackc/pgx/v5/stdlib"
)

type options struct {
	n       int
	clients int
	dur     time.Duration
	pg      string
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 400_000, "points in the layer")
	flag.IntVar(&o.clients, "c", 150, "clients")
	flag.DurationVar(&o.dur, "d", 60*time.Second, "duration of each store's run")
	flag.StringVar(&o.pg, "pg", benchkit.EnvOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server for the PostgreSQL run; empty skips it")
	child := flag.Bool("serve", false, "internal: run the server child")
	dataDir := flag.String("datadir", "", "internal: the child's data directory")
	db := flag.String("db", "", "internal: the child's database URL (empty: SQLite)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *child {
		err = serve(ctx, o.n, *dataDir, *db)
	} else {
		err = run(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mixload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	fmt.Printf("bench/mixload: %d points, %d clients for %s per store (2/3 items?bbox pages of 100, 1/3 POST /comments), /readyz every 200 ms\n",
		o.n, o.clients, o.dur)
	stores := []struct{ name, url string }{{"SQLite", ""}}
	if o.pg != "" {
		stores = append(stores, struct{ name, url string }{"PostgreSQL", o.pg})
	}
	for _, s := range stores {
		if err := runStore(ctx, o, s.name, s.url); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// runStore starts a server child on one store, loads it and prints the
// figures.
func runStore(ctx context.Context, o options, name, pgServer string) error {
	dir, err := os.MkdirTemp("", "mixload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	dbURL := ""
	if pgServer != "" {
		admin, err := sql.Open("pgx", pgServer)
		if err != nil {
			return err
		}
		defer admin.Close()
		db := fmt.Sprintf("geopub_bench_mixload_%d", os.Getpid())
		if err := benchkit.Scratch(ctx, admin, pgServer, db, ""); err != nil {
			return err
		}
		defer benchkit.Drop(admin, db)
		dbURL = benchkit.WithDatabase(pgServer, db)
	}
	var info serverInfo
	pid, stop, err := benchkit.StartChild(ctx, &info, "-serve", "-n", strconv.Itoa(o.n), "-datadir", dir, "-db", dbURL)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("\n%s: seeded in %s (server pid %d)\n", name, info.Seed, pid)
	r := drive(ctx, info, o.clients, o.dur)
	r.print(os.Stdout)
	return nil
}
