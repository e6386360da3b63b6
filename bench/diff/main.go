// Command diff measures versiondiff.Compare, the diff of two stored layer
// versions, beside the same diff computed by PostGIS in the same run: it
// generates version A, n points with the attributes of a real layer (id,
// the primary key; name, category, value, surveyed, active) and version
// B, A with 1% of its features changed (a third deleted, a third updated,
// a third inserted), writes both with featurerows.Writer into a SQLite
// store and a PostgreSQL store, and as two plain tables a and b into
// PostGIS. Then, in rounds, it times in child processes (so each one's
// peak RSS is its own): Compare from A to B by id on each store, with
// every change handed to a callback and in the CountOnly mode, and
// PostGIS's FULL OUTER JOIN of a and b on id fetching the changed rows,
// old and new. Every run checks the changes found against the generator.
// It prints one table: medians of the rounds, peak memory, and the ratio
// to PostGIS taken round by round.
//
//	go run ./bench/diff [-n 1000000] [-runs 3] [-only sqlite,postgres,postgis] [-pg URL] [-work DIR]
//
// Run it through bench/diff/run.sh.
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/store"
)

func main() {
	n := flag.Int("n", 1_000_000, "features of version A")
	runs := flag.Int("runs", 3, "rounds of measured runs; the table shows medians")
	work := flag.String("work", "", "working directory (default: a temporary one, removed after)")
	pg := flag.String("pg", benchkit.EnvOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL; empty skips PostgreSQL and PostGIS")
	only := flag.String("only", "", "comma-separated subset: sqlite,postgres,postgis")
	cpuProfile := flag.String("cpuprofile", "", "write CPU profiles of the first round's children to this file prefix")
	keep := flag.Bool("keep", false, "keep the scratch databases (to look at query plans); drop them by hand after")
	// Child mode: one measured diff in its own process.
	child := flag.String("child", "", "internal: diff (ours) or postgis; run once and report JSON")
	db := flag.String("db", "", "internal: database URL of the child")
	dataDir := flag.String("datadir", "", "internal: SQLite data directory of the child")
	countOnly := flag.Bool("countonly", false, "internal: Compare with CountOnly")
	flag.Parse()
	ctx := context.Background()
	var err error
	switch *child {
	case "":
		err = run(ctx, *n, *runs, *work, *pg, *only, *cpuProfile, *keep)
	case "diff":
		err = diffChild(ctx, *db, *dataDir, *n, *countOnly, *cpuProfile)
	case "postgis":
		err = postgisChild(ctx, *db, *n, *cpuProfile)
	default:
		err = fmt.Errorf("unknown child %q", *child)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/diff:", err)
		os.Exit(1)
	}
}

// measured is one kind of run: a child's arguments and the database
// whose server backends' memory is sampled ("" for none).
type measured struct {
	name     string
	args     []string
	serverDB string
	postgis  bool
	results  []result
}

// result is one run of a child.
type result struct {
	report
	process   time.Duration // the whole child, from outside
	serverMem int64         // peak private memory of its server backends, bytes
	err       error
}

func run(ctx context.Context, n, runs int, work, pg, only, cpuProfile string, keep bool) error {
	if work == "" {
		dir, err := os.MkdirTemp("", "geopub-bench-diff-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		work = dir
	} else if err := os.MkdirAll(work, 0o750); err != nil {
		return err
	}
	want := func(name string) bool { return only == "" || strings.Contains(","+only+",", ","+name+",") }
	self, err := os.Executable()
	if err != nil {
		return err
	}
	exp := expected(n)
	fmt.Printf("version A: %d points; B: %d deleted, %d updated, %d inserted (%.2f%%)\n",
		n, exp.Deletes, exp.Updates, exp.Inserts, 100*float64(exp.total())/float64(n))
	nArg := "-n=" + strconv.Itoa(n)
	var cases []*measured
	ours := func(name string, args []string, serverDB string) {
		cases = append(cases,
			&measured{name: name + " Compare", args: append([]string{"-child=diff", nArg}, args...), serverDB: serverDB},
			&measured{name: name + " CountOnly", args: append([]string{"-child=diff", nArg, "-countonly"}, args...), serverDB: serverDB})
	}

	if want("sqlite") {
		dir := filepath.Join(work, "sqlite")
		if err := os.RemoveAll(dir); err != nil { // a fresh store each run, also with -work
			return err
		}
		t0 := time.Now()
		if err := loadStore(ctx, store.Config{DataDir: dir}, n); err != nil {
			return fmt.Errorf("loading SQLite: %w", err)
		}
		fmt.Printf("SQLite store loaded in %s\n", time.Since(t0).Round(time.Millisecond))
		ours("SQLite", []string{"-datadir", dir}, "")
	}
	var admin *sql.DB
	if pg != "" && (want("postgres") || want("postgis")) {
		if admin, err = sql.Open("pgx", pg); err != nil {
			return err
		}
		defer admin.Close()
	}
	if admin != nil && want("postgres") {
		db := fmt.Sprintf("geopub_bench_diff_pg_%d", os.Getpid())
		if err := benchkit.Scratch(ctx, admin, pg, db, ""); err != nil {
			return err
		}
		defer drop(admin, db, keep)
		u := benchkit.WithDatabase(pg, db)
		t0 := time.Now()
		if err := loadStore(ctx, store.Config{DatabaseURL: u}, n); err != nil {
			return fmt.Errorf("loading PostgreSQL: %w", err)
		}
		fmt.Printf("PostgreSQL store loaded in %s\n", time.Since(t0).Round(time.Millisecond))
		ours("PostgreSQL", []string{"-db", u}, db)
	}
	if admin != nil && want("postgis") {
		db := fmt.Sprintf("geopub_bench_diff_postgis_%d", os.Getpid())
		if err := benchkit.Scratch(ctx, admin, pg, db, "CREATE EXTENSION IF NOT EXISTS postgis"); err != nil {
			return err
		}
		defer drop(admin, db, keep)
		u := benchkit.WithDatabase(pg, db)
		t0 := time.Now()
		if err := loadPostGIS(ctx, u, n); err != nil {
			return fmt.Errorf("loading PostGIS: %w", err)
		}
		fmt.Printf("PostGIS tables loaded in %s\n", time.Since(t0).Round(time.Millisecond))
		cases = append(cases, &measured{name: "PostGIS FULL OUTER JOIN", args: []string{"-child=postgis", nArg, "-db", u}, serverDB: db, postgis: true})
	}

	for round := range runs {
		for _, c := range cases {
			args := c.args
			if cpuProfile != "" && round == 0 {
				args = append(slices.Clone(args), "-cpuprofile", cpuProfile+"."+strings.ReplaceAll(c.name, " ", "-"))
			}
			r := runChild(ctx, admin, c.serverDB, exec.Command(self, args...))
			c.results = append(c.results, r)
			if r.err != nil {
				return fmt.Errorf("%s: %w", c.name, r.err)
			}
			fmt.Printf("round %d: %-26s %6.2f s  %6d changes  RSS %4.0f MB\n", round+1, c.name,
				r.Wall.Seconds(), r.Counts.total(), mb(r.MaxRSS))
		}
	}
	printTable(cases)
	return nil
}

// runChild runs one measured child and samples its server backends.
func runChild(ctx context.Context, admin *sql.DB, serverDB string, cmd *exec.Cmd) result {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var stopSampling func() int64
	if admin != nil && serverDB != "" {
		stopSampling = sampleServer(ctx, admin, serverDB)
	}
	start := time.Now()
	err := cmd.Run()
	r := result{process: time.Since(start)}
	if stopSampling != nil {
		r.serverMem = stopSampling()
	}
	if err != nil {
		r.err = fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		return r
	}
	if err := json.Unmarshal(stdout.Bytes(), &r.report); err != nil {
		r.err = fmt.Errorf("bad report %q: %v", stdout.String(), err)
	}
	return r
}

// sampleServer samples, every 25 ms until the returned function is
// called, the private resident memory (RssAnon: sorts, hash tables; not
// the shared buffers every backend maps) of the server's backends
// connected to database db, summed; the function returns the peak. It
// reads /proc, so the server must run on this machine (else 0).
func sampleServer(ctx context.Context, admin *sql.DB, db string) func() int64 {
	stop := make(chan struct{})
	var (
		wg   sync.WaitGroup
		peak int64
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(25 * time.Millisecond)
		defer t.Stop()
		var pids []int
		for tick := 0; ; tick++ {
			if tick%4 == 0 {
				pids = pids[:0]
				if rows, err := admin.QueryContext(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = $1", db); err == nil {
					for rows.Next() {
						var pid int
						if rows.Scan(&pid) == nil {
							pids = append(pids, pid)
						}
					}
					rows.Close()
				}
			}
			var sum int64
			for _, pid := range pids {
				sum += max(benchkit.ProcStatus(pid, "RssAnon"), 0)
			}
			peak = max(peak, sum)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		wg.Wait()
		return peak
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func median[T int64 | float64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func printTable(cases []*measured) {
	var base *measured
	for _, c := range cases {
		if c.postgis {
			base = c
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tchanges\ttime s (min–max)\tprocess s\tpeak RSS MB\tpeak Go heap MB\tGo alloc MB\tserver MB\tours/PostGIS (min–max)\t")
	for _, c := range cases {
		var wall, proc, rss, heap, alloc, server []int64
		for _, r := range c.results {
			wall = append(wall, int64(r.Wall))
			proc = append(proc, int64(r.process))
			rss = append(rss, r.MaxRSS)
			heap = append(heap, int64(r.PeakHeap))
			alloc = append(alloc, int64(r.TotalAlloc))
			server = append(server, r.serverMem)
		}
		ratio := "-"
		if base != nil && c != base {
			var rs []float64
			for i, r := range c.results {
				rs = append(rs, r.Wall.Seconds()/base.results[i].Wall.Seconds())
			}
			ratio = fmt.Sprintf("%.2f (%.2f–%.2f)", median(rs), slices.Min(rs), slices.Max(rs))
		}
		srv := "-"
		if c.serverDB != "" {
			srv = fmt.Sprintf("%.0f", mb(median(server)))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f (%.2f–%.2f)\t%.2f\t%.0f\t%.0f\t%.0f\t%s\t%s\t\n", c.name, c.results[0].Counts.total(),
			time.Duration(median(wall)).Seconds(), time.Duration(slices.Min(wall)).Seconds(), time.Duration(slices.Max(wall)).Seconds(),
			time.Duration(median(proc)).Seconds(), mb(median(rss)), mb(median(heap)), mb(median(alloc)), srv, ratio)
	}
	tw.Flush()
}

// drop removes a scratch database, or with -keep names it.
func drop(admin *sql.DB, db string, keep bool) {
	if keep {
		fmt.Println("kept database", db)
		return
	}
	benchkit.Drop(admin, db)
}
