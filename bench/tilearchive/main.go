// Command tilearchive measures building a PMTiles archive of a large
// vector layer: 1,000,000 points over New Zealand (benchkit's extent,
// fixed seed) stored as a published layer in a SQLite store through
// featurerows' bulk writer, then written to zoom 14 by
// tilearchive.WritePMTiles from the real vector tile service
// (vectortiles.Service.LayerMVT over the published layer, feature
// indexes warm as `geopub serve` has them) — wall time and the build
// process's peak RSS. Beside it, with no tippecanoe on Debian: the time
// to GET every non-empty tile of the archive from the tile service over
// HTTP (a fresh server, cold tile cache, concurrency 2). Each phase runs
// in its own child process, so each peak RSS is its own.
//
//	go run ./bench/tilearchive [-points 1000000] [-maxzoom 14] [-c 2] [-work DIR]
//
// Run it through bench/tilearchive/run.sh.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"
)

func main() {
	points := flag.Int("points", 1_000_000, "points to generate")
	minZoom := flag.Int("minzoom", 0, "shallowest zoom")
	maxZoom := flag.Int("maxzoom", 14, "deepest zoom")
	conc := flag.Int("c", 2, "concurrency of the HTTP fetch")
	workers := flag.Int("workers", defaultWorkers(), "tile makers of the build")
	work := flag.String("work", "", "working directory (default: a temporary one, removed after)")
	doFetch := flag.Bool("fetch", true, "also GET every tile over HTTP (false: the build alone)")
	flag.Int64Var(&cacheBytes, "cache-bytes", cacheBytes, "the servers' tile cache (1 keeps nothing)")
	phase := flag.String("phase", "", "internal: load, build or fetch in this process")
	dataDir := flag.String("datadir", "", "internal: the SQLite store's directory")
	layer := flag.Int("layer", 0, "internal: the layer id")
	out := flag.String("out", "", "internal: the archive")
	list := flag.String("list", "", "internal: the list of non-empty tiles")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var res any
	var err error
	switch *phase {
	case "load":
		res, err = load(ctx, *dataDir, *points)
	case "build":
		res, err = build(ctx, *dataDir, *layer, *minZoom, *maxZoom, *workers, *out, *list)
	case "fetch":
		res, err = fetch(ctx, *dataDir, *layer, *list, *conc)
	case "":
		err = run(ctx, *points, *minZoom, *maxZoom, *conc, *workers, *work, *doFetch)
	default:
		err = fmt.Errorf("unknown phase %q", *phase)
	}
	if err == nil && res != nil {
		err = json.NewEncoder(os.Stdout).Encode(res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/tilearchive:", err)
		os.Exit(1)
	}
}

// child runs a phase in a child process and decodes its JSON answer
// into v.
func child(ctx context.Context, v any, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%v: %w", args, err)
	}
	return json.Unmarshal(out, v)
}

func run(ctx context.Context, points, minZ, maxZ, conc, workers int, work string, doFetch bool) error {
	if work == "" {
		dir, err := os.MkdirTemp("", "geopub-bench-tilearchive-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		work = dir
	} else if err := os.MkdirAll(work, 0o750); err != nil {
		return err
	}
	dataDir := filepath.Join(work, "store")
	archive := filepath.Join(work, "points.pmtiles")
	list := filepath.Join(work, "tiles.txt")
	fmt.Printf("data: %d points over New Zealand; zooms %d-%d; %d tile makers; HTTP concurrency %d; tile cache %d bytes\n", points, minZ, maxZ, workers, conc, cacheBytes)

	// A work directory a run loaded before is reused (same -points).
	start := time.Now()
	var id int
	idFile := filepath.Join(work, fmt.Sprintf("layer-%d.txt", points))
	if b, err := os.ReadFile(idFile); err == nil {
		if id, err = strconv.Atoi(string(b)); err != nil {
			return fmt.Errorf("%s: %w", idFile, err)
		}
		fmt.Printf("reusing the store of %s (layer %d)\n", work, id)
	} else {
		if err := child(ctx, &id, "-phase", "load", "-datadir", dataDir, "-points", strconv.Itoa(points)); err != nil {
			return err
		}
		fmt.Printf("load (featurerows bulk insert, SQLite): %s\n", time.Since(start).Round(time.Millisecond))
		if err := os.WriteFile(idFile, []byte(strconv.Itoa(id)), 0o640); err != nil {
			return err
		}
	}
	cache := []string{"-cache-bytes", strconv.FormatInt(cacheBytes, 10)}

	var b buildResult
	zs := []string{"-minzoom", strconv.Itoa(minZ), "-maxzoom", strconv.Itoa(maxZ)}
	if err := child(ctx, &b, append([]string{"-phase", "build", "-datadir", dataDir, "-layer", strconv.Itoa(id),
		"-out", archive, "-list", list, "-workers", strconv.Itoa(workers)}, append(zs, cache...)...)...); err != nil {
		return err
	}
	var f fetchResult
	if !doFetch {
		f.Wall = -1
	} else if err := child(ctx, &f, append([]string{"-phase", "fetch", "-datadir", dataDir, "-layer", strconv.Itoa(id), "-list", list, "-c", strconv.Itoa(conc)}, cache...)...); err != nil {
		return err
	}
	s := b.Stats
	fmt.Printf("feature index build (each child, before the clock): %s, %d MiB\n", b.Warm.Round(time.Millisecond), b.Index>>20)
	fmt.Printf("PMTiles build: %s, %d tiles (%.0f/s), %d empty visited, %d unique, archive %.1f MiB\n",
		b.Wall.Round(time.Millisecond), s.Tiles, float64(s.Tiles)/b.Wall.Seconds(), s.Empty, s.Unique, float64(b.Output)/(1<<20))
	if doFetch {
		fmt.Printf("GET every tile over HTTP: %s, %d tiles (%.0f/s), %.1f MiB of MVT\n",
			f.Wall.Round(time.Millisecond), f.Tiles, float64(f.Tiles)/f.Wall.Seconds(), float64(f.Bytes)/(1<<20))
		fmt.Printf("build / fetch: %.2f\n", b.Wall.Seconds()/f.Wall.Seconds())
	}
	fmt.Printf("%-8s %14s %14s %14s %14s\n", "memory", "RSS before", "peak RSS", "heap peak", "tile cache")
	for _, m := range []struct {
		name string
		m    mem
	}{{"build", b.mem}, {"fetch", f.mem}} {
		if m.name == "fetch" && !doFetch {
			break
		}
		fmt.Printf("%-8s %10d MiB %10d MiB %10d MiB %10d MiB\n", m.name, m.m.HWMBefore>>20, m.m.HWM>>20, m.m.HeapPeak>>20, m.m.Cache>>20)
	}
	return nil
}
