// Command export compares Geopub's export writer with ogr2ogr on the same
// data, in the same run: it generates 1,000,000 points and 100,000
// polygons over New Zealand, loads them into a Geopub store (SQLite, and
// PostgreSQL when a server is given) with featurerows.Writer, writes a
// GeoPackage copy with GDAL and loads that copy into PostGIS with
// ogr2ogr. Then, for each layer and for GeoPackage and FlatGeobuf output,
// whole and cropped to the middle quarter of the extent and reprojected
// to EPSG:2193, it times exportfile.WriteVector over featurerows.ReadRaw
// (in a child process, so its peak RSS, GDAL's C memory included, is its
// own) beside ogr2ogr from the GeoPackage copy and from PostGIS
// (-clipsrc with the same quarter, -t_srs EPSG:2193), and prints wall
// time, the ratio to ogr2ogr and peak memory.
//
//	go run ./bench/export [-points 1000000] [-polygons 100000] [-pg URL] [-work DIR]
//
// Run it through bench/export/run.sh.
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
	points := flag.Int("points", 1_000_000, "points to generate")
	polygons := flag.Int("polygons", 100_000, "polygons to generate")
	work := flag.String("work", "", "working directory (default: a temporary one, removed after)")
	pg := flag.String("pg", benchkit.EnvOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL; empty skips PostGIS and the PostgreSQL store")
	only := flag.String("only", "", "comma-separated subset of cases, e.g. points-gpkg-whole,polygons-fgb-crop")
	cpuProfile := flag.String("cpuprofile", "", "write CPU profiles of our children to this file prefix")
	// Child mode: our path in its own process.
	child := flag.Bool("child", false, "internal: run one export and report JSON")
	db := flag.String("db", "", "internal: store database URL")
	dataDir := flag.String("datadir", "", "internal: store data directory (SQLite)")
	version := flag.Int("version", 0, "internal: layer version")
	format := flag.String("format", "", "internal: gpkg or fgb")
	out := flag.String("out", "", "internal: output file")
	crop := flag.Bool("crop", false, "internal: crop and reproject")
	loadOnly := flag.Bool("load", false, "internal: load the generated data into the store and exit")
	flag.Parse()
	ctx := context.Background()
	if *loadOnly {
		if err := loadChild(ctx, *db, *dataDir, *points, *polygons); err != nil {
			fmt.Fprintln(os.Stderr, "load child:", err)
			os.Exit(1)
		}
		return
	}
	if *child {
		if err := exportChild(ctx, *db, *dataDir, *version, *format, *out, *crop, *cpuProfile); err != nil {
			fmt.Fprintln(os.Stderr, "export child:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, *points, *polygons, *work, *pg, *only, *cpuProfile); err != nil {
		fmt.Fprintln(os.Stderr, "bench/export:", err)
		os.Exit(1)
	}
}

// source is where a run reads from.
type source struct {
	name string
	// ours: store flags for the child; ogr: ogr2ogr's source dataset.
	storeArgs []string
	ogr       string
}

// measure is one timed run.
type measure struct {
	features int64
	wall     time.Duration
	maxRSS   int64 // rusage of the child (at least the parent's size)
	hwm      int64 // our children's own VmHWM
	err      error
}

func run(ctx context.Context, nPoints, nPolygons int, work, pg, only, cpuProfile string) error {
	if work == "" {
		dir, err := os.MkdirTemp("", "geopub-bench-export-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		work = dir
	} else if err := os.MkdirAll(work, 0o750); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("data: %d points, %d polygons over lon %g..%g, lat %g..%g; crop: %s, reprojected to EPSG:2193\n",
		nPoints, nPolygons, minLon, maxLon, minLat, maxLat, quarterWKT())

	// Loading runs in a child too: a child's peak RSS starts at its
	// parent's (Linux keeps the high-water mark across fork and exec), so
	// the parent stays small.
	counts := []string{"-points", fmt.Sprint(nPoints), "-polygons", fmt.Sprint(nPolygons)}
	sqliteDir := filepath.Join(work, "store")
	r := timed(exec.Command(self, append([]string{"-load", "-datadir", sqliteDir}, counts...)...))
	if r.err != nil {
		return fmt.Errorf("loading SQLite: %w", r.err)
	}
	fmt.Printf("loaded the SQLite store in %s\n", r.wall.Round(time.Millisecond))
	sources := []source{{name: "SQLite store", storeArgs: []string{"-datadir", sqliteDir}}}

	// The GeoPackage copy, written by GDAL (through our writer, whole).
	copyDir := filepath.Join(work, "copy")
	if err := os.MkdirAll(copyDir, 0o750); err != nil {
		return err
	}
	for _, c := range []struct {
		name    string
		version int
	}{{"points", pointsVersion}, {"polygons", polygonsVersion}} {
		m := ours(self, []string{"-datadir", sqliteDir}, c.version, "gpkg", filepath.Join(copyDir, c.name+".gpkg"), false, "")
		if m.err != nil {
			return fmt.Errorf("GeoPackage copy of %s: %w", c.name, m.err)
		}
	}
	gpkgCopy := filepath.Join(work, "copy.gpkg")
	for _, name := range []string{"points", "polygons"} {
		args := []string{"-f", "GPKG", gpkgCopy, filepath.Join(copyDir, name+".gpkg")}
		if name == "polygons" {
			args = append(args, "-update")
		}
		if r := timed(exec.Command("ogr2ogr", args...)); r.err != nil {
			return fmt.Errorf("GeoPackage copy: %w", r.err)
		}
	}
	os.RemoveAll(copyDir)
	ogrSources := []source{{name: "GeoPackage copy", ogr: gpkgCopy}}

	if pg != "" {
		admin, err := sql.Open("pgx", pg)
		if err != nil {
			return err
		}
		defer admin.Close()
		pgStore := fmt.Sprintf("geopub_bench_export_store_%d", os.Getpid())
		if err := benchkit.Scratch(ctx, admin, pg, pgStore, ""); err != nil {
			return err
		}
		defer benchkit.Drop(admin, pgStore)
		r := timed(exec.Command(self, append([]string{"-load", "-db", benchkit.WithDatabase(pg, pgStore)}, counts...)...))
		if r.err != nil {
			return fmt.Errorf("loading PostgreSQL: %w", r.err)
		}
		fmt.Printf("loaded the PostgreSQL store in %s\n", r.wall.Round(time.Millisecond))
		sources = append(sources, source{name: "PostgreSQL store", storeArgs: []string{"-db", benchkit.WithDatabase(pg, pgStore)}})

		postgis := fmt.Sprintf("geopub_bench_export_postgis_%d", os.Getpid())
		if err := benchkit.Scratch(ctx, admin, pg, postgis, "CREATE EXTENSION postgis"); err != nil {
			return err
		}
		defer benchkit.Drop(admin, postgis)
		conn := "PG:" + benchkit.Conninfo(benchkit.WithDatabase(pg, postgis))
		r = timed(exec.Command("ogr2ogr", "-f", "PostgreSQL", conn, gpkgCopy, "-lco", "GEOMETRY_NAME=geom"))
		if r.err != nil {
			return fmt.Errorf("loading PostGIS: %w", r.err)
		}
		fmt.Printf("loaded PostGIS with ogr2ogr in %s\n", r.wall.Round(time.Millisecond))
		ogrSources = append(ogrSources, source{name: "PostGIS", ogr: conn})
	}

	var rows []row
	outDir := filepath.Join(work, "out")
	for _, layer := range []struct {
		name    string
		version int
	}{{"points", pointsVersion}, {"polygons", polygonsVersion}} {
		for _, format := range []string{"gpkg", "fgb"} {
			for _, crop := range []bool{false, true} {
				mode := map[bool]string{false: "whole", true: "crop"}[crop]
				cas := layer.name + "-" + format + "-" + mode
				if only != "" && !strings.Contains(","+only+",", ","+cas+",") {
					continue
				}
				r := row{name: cas}
				for _, s := range ogrSources {
					fresh(outDir)
					r.ogr = append(r.ogr, named{s.name, ogr2ogr(s.ogr, layer.name, format, filepath.Join(outDir, "o."+format), crop)})
				}
				for _, s := range sources {
					fresh(outDir)
					prof := ""
					if cpuProfile != "" {
						prof = cpuProfile + "." + cas + "." + strings.Fields(s.name)[0]
					}
					r.ours = append(r.ours, named{s.name, ours(self, s.storeArgs, layer.version, format, filepath.Join(outDir, layer.name+"."+format), crop, prof)})
				}
				printRow(r)
				rows = append(rows, r)
			}
		}
	}
	os.RemoveAll(outDir)
	fmt.Println()
	printTable(rows)
	return nil
}

func fresh(dir string) {
	os.RemoveAll(dir)
	_ = os.MkdirAll(dir, 0o750)
}

// ogr2ogr exports layer of src to out as ogr2ogr does it; cropped runs
// clip to the quarter, promote to multi types as our writer does (a cut
// can split a polygon) and reproject to EPSG:2193.
func ogr2ogr(src, layer, format, out string, crop bool) measure {
	driver := map[string]string{"gpkg": "GPKG", "fgb": "FlatGeobuf"}[format]
	args := []string{"-f", driver, out, src, layer}
	if crop {
		args = append(args, "-clipsrc", quarterWKT(), "-t_srs", "EPSG:2193")
		if layer == "polygons" {
			args = append(args, "-nlt", "PROMOTE_TO_MULTI")
		}
	}
	m := timed(exec.Command("ogr2ogr", args...))
	if m.err == nil {
		m.features = countFeatures(out)
	}
	return m
}

// countFeatures reads a written file's feature count with ogrinfo.
func countFeatures(path string) int64 {
	b, err := exec.Command("ogrinfo", "-so", "-al", path).Output()
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Feature Count: "); ok {
			var n int64
			fmt.Sscan(v, &n)
			return n
		}
	}
	return -1
}

// ours runs our export in a child process.
func ours(self string, storeArgs []string, version int, format, out string, crop bool, cpuProfile string) measure {
	args := append([]string{"-child", "-version", fmt.Sprint(version), "-format", format, "-out", out}, storeArgs...)
	if crop {
		args = append(args, "-crop")
	}
	if cpuProfile != "" {
		args = append(args, "-cpuprofile", cpuProfile)
	}
	cmd := exec.Command(self, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	m := timed(cmd)
	if m.err != nil {
		return m
	}
	var rep childReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		m.err = fmt.Errorf("bad report %q: %v", stdout.String(), err)
		return m
	}
	m.features = rep.Features
	m.hwm = rep.MaxRSS
	return m
}

// timed runs cmd and measures its wall time and peak RSS.
func timed(cmd *exec.Cmd) measure {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	m := measure{wall: time.Since(start)}
	if err != nil {
		m.err = fmt.Errorf("%v: %s", err, strings.Join(strings.Fields(stderr.String()), " "))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.maxRSS = ru.Maxrss * 1024
	}
	return m
}

type named struct {
	source string
	m      measure
}

// row is one case: ogr2ogr's runs and ours.
type row struct {
	name      string
	ogr, ours []named
}

func printRow(r row) {
	for _, n := range append(append([]named{}, r.ogr...), r.ours...) {
		if n.m.err != nil {
			fmt.Printf("%-24s %-18s failed: %v\n", r.name, n.source, n.m.err)
		}
	}
}

func printTable(rows []row) {
	mb := func(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\trun\tfeatures\twall s\t× ogr2ogr (GPKG copy)\t× ogr2ogr (PostGIS)\tpeak RSS MB\tVmHWM MB\t")
	for _, r := range rows {
		base := map[string]time.Duration{}
		for _, o := range r.ogr {
			if o.m.err == nil {
				base[o.source] = o.m.wall
			}
		}
		ratio := func(src string, d time.Duration) string {
			if b, ok := base[src]; ok && b > 0 {
				return fmt.Sprintf("%.2f", d.Seconds()/b.Seconds())
			}
			return "-"
		}
		for _, o := range r.ogr {
			fmt.Fprintf(tw, "%s\togr2ogr from %s\t%d\t%.2f\t\t\t%s\t-\t\n", r.name, o.source, o.m.features, o.m.wall.Seconds(), mb(o.m.maxRSS))
		}
		for _, o := range r.ours {
			if o.m.err != nil {
				fmt.Fprintf(tw, "%s\tgeopub from %s\tfailed\t\t\t\t\t\t\n", r.name, o.source)
				continue
			}
			fmt.Fprintf(tw, "%s\tgeopub from %s\t%d\t%.2f\t%s\t%s\t%s\t%s\t\n", r.name, o.source, o.m.features, o.m.wall.Seconds(),
				ratio("GeoPackage copy", o.m.wall), ratio("PostGIS", o.m.wall), mb(o.m.maxRSS), mb(o.m.hwm))
		}
	}
	tw.Flush()
}
