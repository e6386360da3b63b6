// Command tiles measures Geopub's vector tiles and OGC API Features items
// pages under load, beside PostGIS's own ST_AsMVT and MapServer, in the
// same run. It loads bench/export's data (1,000,000 points and 100,000
// polygons over New Zealand, benchkit's generator) into a Geopub store,
// SQLite and PostgreSQL, as two published public layers, and into a
// scratch PostGIS database (tables with a GiST index). Then, at
// concurrency 8 through Geopub's own HTTP server (a child process):
//
//   - MVT tiles at zooms 8, 12 and 14 of each layer, from a fixed list of
//     tiles over the data: cold (a server whose tile cache holds nothing)
//     and cached (every tile of the list made once before the clock
//     runs); beside ST_AsMVT queries of the same tiles on 8 connections;
//   - /healthz, the floor of the HTTP path on this machine, just before
//     each cached case, whose ratio is against that run;
//   - OGC API Features items pages (limit 100, a fixed list of bbox
//     values) beside MapServer's OGC API Features over the PostGIS copy
//     (its CGI program, started per request as Apache would).
//
// It prints throughput, p50 and p99 per run, the ratios the issue sets
// targets for, and whether each holds. Nothing is written outside -work.
//
//	go run ./bench/tiles [-work DIR] [-pg URL] [-d 5s] [-c 8]
//
// Run it through bench/tiles/run.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/vectortiles"
)

// options are the parent's flags.
type options struct {
	work, pg, cpuProfile   string
	limits                 string
	points, polygons, conc int
	perZoom, boxes         int
	dur                    time.Duration
	gzip                   bool
}

// tileHeader is the header lines of tile requests: Accept-Encoding: gzip
// unless -gzip=false, as browsers and MapLibre ask.
func (o options) tileHeader() string {
	if o.gzip {
		return "Accept-Encoding: gzip\r\n"
	}
	return ""
}

func main() {
	var o options
	flag.StringVar(&o.work, "work", "", "working directory (default: a temporary one, removed after)")
	flag.StringVar(&o.pg, "pg", benchkit.EnvOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"),
		"PostgreSQL server URL; empty skips the PostgreSQL store, PostGIS and MapServer")
	flag.IntVar(&o.points, "points", 1_000_000, "points to generate")
	flag.IntVar(&o.polygons, "polygons", 100_000, "polygons to generate")
	flag.IntVar(&o.conc, "c", 8, "concurrency: clients of Geopub and MapServer, connections to PostGIS")
	flag.IntVar(&o.perZoom, "tiles", 40, "most tiles per zoom in the fixed list")
	flag.IntVar(&o.boxes, "boxes", 500, "bbox values in the items pages' fixed list")
	flag.DurationVar(&o.dur, "d", 5*time.Second, "duration of each run")
	flag.BoolVar(&o.gzip, "gzip", true, "ask for tiles with Accept-Encoding: gzip, as browsers do (PostGIS's ST_AsMVT answers are never compressed)")
	flag.Func("zooms", "comma-separated zooms to measure (default 8,12,14)", func(v string) error {
		var zs []int
		for _, f := range strings.Split(v, ",") {
			z, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || z < 0 || z > vectortiles.MaxZoom {
				return fmt.Errorf("bad zoom %q", f)
			}
			zs = append(zs, z)
		}
		zooms = zs
		return nil
	})
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write CPU profiles of the server children to PREFIX.<store>.<cold|cached>")
	// Child mode: the server.
	flag.StringVar(&o.limits, "rate-limits", "", "rate limits of the server children (--rate-limits syntax, e.g. tiles=1000000000/1h,ogc=1000000000/1h), to compare runs with limits on and off")
	child := flag.Bool("serve", false, "internal: run a server child")
	seed := flag.Bool("seed", false, "internal: store the layers first")
	dataDir := flag.String("datadir", "", "internal: the child's SQLite data directory")
	db := flag.String("db", "", "internal: the child's PostgreSQL store URL")
	cacheBytes := flag.Int64("cache-bytes", 0, "internal: the child's tile cache")
	index := flag.Bool("index", false, "internal: build the feature indexes and make tiles from them")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *child {
		var stopProfile func()
		if stopProfile, err = benchkit.Profile(o.cpuProfile); err == nil {
			err = serve(ctx, *dataDir, *db, *cacheBytes, *seed, *index, o.points, o.polygons, o.limits)
			stopProfile()
		}
	} else {
		err = run(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/tiles:", err)
		os.Exit(1)
	}
}
