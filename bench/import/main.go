// Command import compares Geopub's import path with ogr2ogr on the same
// data: it generates a GeoJSON text sequence of points, loads it with
// ogr2ogr into a GeoPackage and into PostGIS, and with the import job's
// path (ingest.Records, reprojection, importing.RowEncoder,
// featurerows.Writer) into SQLite and PostgreSQL, each in a child
// process, and prints wall time, rows/s and peak RSS in one table.
//
//	go run ./bench/import [-n 1000000] [-work DIR] [-pg URL]
//
// Run it through bench/import/run.sh.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/bench/benchkit"
)

func main() {
	n := flag.Int("n", 1_000_000, "points to generate")
	work := flag.String("work", "", "working directory (default: a temporary one, removed after)")
	pg := flag.String("pg", benchkit.EnvOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL; empty skips PostgreSQL")
	only := flag.String("only", "", "comma-separated subset of runs: gpkg,read,sqlite,postgis,postgres")
	// The child mode: our path, run in its own process so its peak RSS is
	// its own.
	loadSrc := flag.String("load", "", "internal: load this file with our path and report JSON")
	loadDB := flag.String("db", "", "internal: database URL for -load")
	loadDir := flag.String("datadir", "", "internal: SQLite data directory for -load")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of our path's children to this file prefix")
	flag.Parse()
	ctx := context.Background()
	if *loadSrc != "" {
		if err := load(ctx, *loadSrc, *loadDB, *loadDir, *cpuProfile); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, *n, *work, *pg, *only, *cpuProfile); err != nil {
		fmt.Fprintln(os.Stderr, "bench/import:", err)
		os.Exit(1)
	}
}

// result is one row of the table.
type result struct {
	name   string
	rows   int64
	wall   time.Duration
	maxRSS int64
	load   *loadResult
	err    error
}

func run(ctx context.Context, n int, work, pg, only, cpuProfile string) error {
	if work == "" {
		dir, err := os.MkdirTemp("", "geopub-bench-import-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		work = dir
	} else if err := os.MkdirAll(work, 0o750); err != nil {
		return err
	}
	want := func(name string) bool { return only == "" || strings.Contains(","+only+",", ","+name+",") }
	src := filepath.Join(work, "points.geojsons")
	t0 := time.Now()
	if err := generate(src, n); err != nil {
		return fmt.Errorf("generating: %w", err)
	}
	fi, _ := os.Stat(src)
	fmt.Printf("generated %d points (%.0f MB) in %s\n", n, float64(fi.Size())/1e6, time.Since(t0).Round(time.Millisecond))
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var results []result

	if want("gpkg") {
		out := filepath.Join(work, "ogr.gpkg")
		os.Remove(out) // a fresh file each run, also with -work
		r := child("ogr2ogr → GeoPackage", exec.Command("ogr2ogr", "-f", "GPKG", out, src, "-nln", "points"))
		r.rows = int64(n)
		results = append(results, r)
	}
	if want("read") {
		results = append(results, ours("geopub read+reproject only", exec.Command(self, "-load", src, "-db", "none")))
	}
	if want("sqlite") {
		dir := filepath.Join(work, "sqlite")
		if err := os.RemoveAll(dir); err != nil { // a fresh store each run, also with -work
			return err
		}
		args := []string{"-load", src, "-datadir", dir}
		if cpuProfile != "" {
			args = append(args, "-cpuprofile", cpuProfile+".sqlite")
		}
		results = append(results, ours("geopub → SQLite", exec.Command(self, args...)))
	}
	if pg != "" && (want("postgis") || want("postgres")) {
		admin, err := sql.Open("pgx", pg)
		if err != nil {
			return err
		}
		defer admin.Close()
		if want("postgis") {
			db := fmt.Sprintf("geopub_bench_postgis_%d", os.Getpid())
			r := result{name: "ogr2ogr → PostGIS", rows: int64(n)}
			if err := benchkit.Scratch(ctx, admin, pg, db, "CREATE EXTENSION postgis"); err != nil {
				r.err = err
			} else {
				defer benchkit.Drop(admin, db)
				r = child(r.name, exec.Command("ogr2ogr", "-f", "PostgreSQL", "PG:"+benchkit.Conninfo(benchkit.WithDatabase(pg, db)), src, "-nln", "points"))
				r.rows = int64(n)
			}
			results = append(results, r)
		}
		if want("postgres") {
			db := fmt.Sprintf("geopub_bench_pg_%d", os.Getpid())
			r := result{name: "geopub → PostgreSQL"}
			if err := benchkit.Scratch(ctx, admin, pg, db, ""); err != nil {
				r.err = err
			} else {
				defer benchkit.Drop(admin, db)
				args := []string{"-load", src, "-db", benchkit.WithDatabase(pg, db)}
				if cpuProfile != "" {
					args = append(args, "-cpuprofile", cpuProfile+".postgres")
				}
				r = ours(r.name, exec.Command(self, args...))
			}
			results = append(results, r)
		}
	}
	printTable(results)
	return nil
}

// child runs cmd and measures its wall time and peak RSS.
func child(name string, cmd *exec.Cmd) result {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{name: name, wall: time.Since(start)}
	if err != nil {
		r.err = fmt.Errorf("%v: %s", err, strings.Join(strings.Fields(stderr.String()), " "))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss * 1024
	}
	return r
}

// ours runs our path's child and reads its report.
func ours(name string, cmd *exec.Cmd) result {
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	r := child(name, cmd)
	if r.err != nil {
		return r
	}
	var lr loadResult
	if err := json.Unmarshal(stdout.Bytes(), &lr); err != nil {
		r.err = fmt.Errorf("bad report %q: %v", stdout.String(), err)
		return r
	}
	r.rows, r.load = lr.Rows, &lr
	return r
}

func printTable(results []result) {
	mb := func(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\trows\twall s\trows/s\tpeak RSS MB\tpeak Go heap MB\tGo alloc MB\treproject s\twrite s\t")
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(tw, "%s\tfailed: %v\t\t\t\t\t\t\t\t\n", r.name, r.err)
			continue
		}
		heap, alloc, trn, wr := "-", "-", "-", "-"
		if l := r.load; l != nil {
			heap, alloc = mb(int64(l.PeakHeap)), mb(int64(l.TotalAlloc))
			trn, wr = fmt.Sprintf("%.2f", l.Transform.Seconds()), fmt.Sprintf("%.2f", l.Write.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.0f\t%s\t%s\t%s\t%s\t%s\t\n", r.name, r.rows, r.wall.Seconds(),
			float64(r.rows)/r.wall.Seconds(), mb(r.maxRSS), heap, alloc, trn, wr)
	}
	tw.Flush()
}
