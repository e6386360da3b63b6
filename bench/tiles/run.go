package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/vectortiles"
)

// layerNames are the two layers, as PostGIS and MapServer name them.
var layerNames = []string{"points", "polygons"}

// boxSide is the side in degrees of the items pages' bbox per layer: at
// least 100 features fall in each (about 240 points, 150 polygons).
var boxSide = map[string]float64{"points": 0.2, "polygons": 0.5}

// cachedBytes is the cached server's tile cache: room for every tile of
// the lists.
const cachedBytes = 2 << 30

// store is a Geopub store the server children open.
type store struct {
	name string   // SQLite or PostgreSQL
	args []string // the child's store flags
	db   string   // the PostgreSQL store's URL, empty for SQLite
}

func run(ctx context.Context, o options) error {
	if o.work == "" {
		dir, err := os.MkdirTemp("", "geopub-bench-tiles-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.work = dir
	} else if err := os.MkdirAll(o.work, 0o750); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	lists := map[int][]vectortiles.Tile{}
	for _, z := range zooms {
		lists[z] = tileList(z, o.perZoom)
	}
	fmt.Printf("bench/tiles: %d points, %d polygons; tiles per zoom: z8 %d, z12 %d, z14 %d; concurrency %d; %s per run\n",
		o.points, o.polygons, len(lists[8]), len(lists[12]), len(lists[14]), o.conc, o.dur)
	t := &table{}

	sqliteDir := filepath.Join(o.work, "store")
	if err := os.RemoveAll(sqliteDir); err != nil {
		return err
	}
	stores := []store{{name: "SQLite", args: []string{"-datadir", sqliteDir}}}
	var pg *postgis
	var msAddr, msPrefix string
	if o.pg != "" {
		admin, err := sql.Open("pgx", o.pg)
		if err != nil {
			return err
		}
		defer admin.Close()
		name := fmt.Sprintf("geopub_bench_tiles_store_%d", os.Getpid())
		if err := benchkit.Scratch(ctx, admin, o.pg, name, ""); err != nil {
			return err
		}
		defer benchkit.Drop(admin, name)
		db := benchkit.WithDatabase(o.pg, name)
		stores = append(stores, store{name: "PostgreSQL", args: []string{"-db", db, "-datadir", filepath.Join(o.work, "pgstore")}, db: db})
		if pg, err = newPostGIS(ctx, o.pg, o.points, o.polygons, o.conc); err != nil {
			return fmt.Errorf("PostGIS: %w", err)
		}
		defer pg.close()
		var stopMS func()
		if msAddr, msPrefix, stopMS, err = startMapServer(o.work, benchkit.Conninfo(pg.url)); err != nil {
			return err
		}
		defer stopMS()
	}

	for _, st := range stores {
		if err := measureStore(ctx, self, o, st, lists, t); err != nil {
			return fmt.Errorf("%s store: %w", st.name, err)
		}
	}
	if pg != nil {
		for _, l := range layerNames {
			for _, z := range zooms {
				var bytes counter
				s, err := benchkit.Load(ctx, pg.tileRequester(l, lists[z], &bytes.n), o.conc, o.dur)
				t.add(tileCase(l, z), "PostGIS ST_AsMVT", s, err, &bytes)
			}
		}
		for _, l := range layerNames {
			var bytes counter
			paths := itemsPaths(o, l, func(bbox string) string {
				return "/bench/ogcapi/collections/" + l + "/items?f=json&limit=100&bbox=" + bbox
			})
			r, err := newHTTPRequester(msAddr, paths, msPrefix, "", &bytes)
			if err == nil {
				err = r.check(ctx, 100)
			}
			var s benchkit.Stats
			if err == nil {
				s, err = benchkit.Load(ctx, r, o.conc, o.dur)
			}
			t.add(itemsCase(l), "MapServer OGC API", s, err, &bytes)
		}
	}
	t.print(stores)
	return nil
}

// tilePath is the MVT tile tl of layer id.
func tilePath(id int, tl vectortiles.Tile) string {
	return fmt.Sprintf("/services/tiles/v1/layer=%d/%d/%d/%d.pbf", id, tl.Z, tl.X, tl.Y)
}

func tileCase(layer string, z int) string { return fmt.Sprintf("%s z%d", layer, z) }
func itemsCase(layer string) string       { return layer + " items" }

// itemsPaths are the items pages of layer for the fixed bbox list.
func itemsPaths(o options, layer string, path func(bbox string) string) []string {
	var out []string
	for _, b := range boxList(o.boxes, boxSide[layer]) {
		out = append(out, path(b))
	}
	return out
}

// measureStore runs two cold servers, the first seeding the store and
// making tiles from it, the second from the feature indexes it builds
// first, and then a cached one over st.
func measureStore(ctx context.Context, self string, o options, st store, lists map[int][]vectortiles.Tile, t *table) error {
	profile := func(mode string) []string {
		if o.cpuProfile == "" {
			return nil
		}
		return []string{"-cpuprofile", o.cpuProfile + "." + st.name + "." + mode}
	}
	var ids map[string]int
	tilePaths := func(layer string, z int) []string {
		var out []string
		for _, tl := range lists[z] {
			out = append(out, tilePath(ids[layer], tl))
		}
		return out
	}
	for _, mode := range []string{"cold, store", "cold"} {
		args := append([]string{"-serve", "-cache-bytes", "1", "-rate-limits", o.limits}, st.args...)
		if ids == nil {
			args = append(args, "-seed", "-points", strconv.Itoa(o.points), "-polygons", strconv.Itoa(o.polygons))
		}
		if mode == "cold" {
			args = append(args, "-index")
		}
		c, err := startChild(ctx, self, append(args, profile(strings.ReplaceAll(mode, ", ", "-"))...))
		if err != nil {
			return err
		}
		if ids == nil {
			ids = map[string]int{"points": c.info.Points, "polygons": c.info.Polygons}
			fmt.Printf("%s store: seeded in %s\n", st.name, c.info.Seed)
			if err := settle(ctx, st); err != nil {
				c.stop()
				return err
			}
		}
		if c.info.Indexes != "" {
			fmt.Printf("%s store: feature indexes built in %s\n", st.name, c.info.Indexes)
		}
		if err := measureCold(ctx, c, o, st.name+" "+mode, ids, tilePaths, t); err != nil {
			c.stop()
			return err
		}
		c.stop()
	}

	args := append([]string{"-serve", "-cache-bytes", strconv.Itoa(cachedBytes), "-rate-limits", o.limits}, st.args...)
	c, err := startChild(ctx, self, append(args, profile("cached")...))
	if err != nil {
		return err
	}
	defer c.stop()
	start := time.Now()
	for _, l := range layerNames {
		for _, z := range zooms {
			r, err := newHTTPRequester(c.info.Addr, tilePaths(l, z), "", o.tileHeader(), nil)
			if err != nil {
				return err
			}
			if err := warm(ctx, r, len(lists[z]), o.conc); err != nil {
				return err
			}
		}
	}
	fmt.Printf("%s store: every tile of the lists made in %s; server RSS %d MiB\n", st.name, time.Since(start).Round(time.Millisecond), rssMiB(c.cmd.Process.Pid))
	// Each cached case runs right after its own /healthz run, the floor
	// it is held against: on a shared machine the floor drifts by a
	// fifth or more over a minute, and a ratio of two runs seconds apart
	// carries less of that drift than one against a single early floor.
	hr, err := newHTTPRequester(c.info.Addr, []string{"/healthz"}, "", "", nil)
	if err != nil {
		return err
	}
	before := func(cas string) {
		s, err := benchkit.Load(ctx, hr, o.conc, o.dur)
		t.add("healthz", healthzPeer(st.name, cas), s, err, nil)
	}
	if err := loadTiles(ctx, c, o, st.name+" cached", tilePaths, t, before); err != nil {
		return err
	}
	for _, l := range layerNames {
		var bytes counter
		paths := itemsPaths(o, l, func(bbox string) string {
			return fmt.Sprintf("/services/ogc/features/collections/layer-%d/items?f=json&limit=100&bbox=%s", ids[l], bbox)
		})
		r, err := newHTTPRequester(c.info.Addr, paths, "", "", &bytes)
		if err == nil {
			err = r.check(ctx, 100)
		}
		var s benchkit.Stats
		if err == nil {
			s, err = benchkit.Load(ctx, r, o.conc, o.dur)
		}
		t.add(itemsCase(l), st.name, s, err, &bytes)
	}
	return nil
}

// settle vacuums and analyzes a PostgreSQL store just seeded, as
// autovacuum would soon after: otherwise autovacuum does it during the
// runs that follow, on the cores they measure.
func settle(ctx context.Context, st store) error {
	if st.db == "" {
		return nil
	}
	start := time.Now()
	db, err := sql.Open("pgx", st.db)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM (ANALYZE)"); err != nil {
		return fmt.Errorf("vacuuming the store: %w", err)
	}
	fmt.Printf("%s store: vacuumed and analyzed in %s\n", st.name, time.Since(start).Round(time.Millisecond))
	return nil
}

// measureCold runs the tile cases against a cold server c as run.
func measureCold(ctx context.Context, c *child, o options, run string, ids map[string]int, tilePaths func(string, int) []string, t *table) error {
	// The first request of a layer reads its description and access:
	// made before the clock runs, on a tile of no list.
	for _, l := range layerNames {
		r, err := newHTTPRequester(c.info.Addr, []string{tilePath(ids[l], vectortiles.Tile{Z: 16, X: 64000, Y: 40000})}, "", "", nil)
		if err == nil {
			err = r.Do(ctx, 0)
		}
		if err != nil {
			return err
		}
	}
	return loadTiles(ctx, c, o, run, tilePaths, t, nil)
}

// loadTiles runs each layer's tiles at each zoom against c as run, each
// case after before(case) when before is set.
func loadTiles(ctx context.Context, c *child, o options, run string, tilePaths func(string, int) []string, t *table,
	before func(cas string)) error {
	for _, l := range layerNames {
		for _, z := range zooms {
			if before != nil {
				before(tileCase(l, z))
			}
			var bytes counter
			r, err := newHTTPRequester(c.info.Addr, tilePaths(l, z), "", o.tileHeader(), &bytes)
			if err != nil {
				return err
			}
			s, err := benchkit.Load(ctx, r, o.conc, o.dur)
			t.add(tileCase(l, z), run, s, err, &bytes)
		}
	}
	return nil
}

// warm asks for each of the n requests of r once, conc at a time.
func warm(ctx context.Context, r *httpRequester, n, conc int) error {
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	next := make(chan int)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := r.Do(ctx, i); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// child is a server child process.
type child struct {
	cmd  *exec.Cmd
	info serverInfo
}

// startChild starts self with args and reads the server's address (and
// the seeded layers) from its first line of output.
func startChild(ctx context.Context, self string, args []string) (*child, error) {
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("the server child did not start: %w", err)
	}
	if err := json.Unmarshal(line, &c.info); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// stop interrupts the child (which then writes its profile) and waits
// for it, killing it after 30 s.
func (c *child) stop() {
	_ = c.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// rssMiB reads a process's resident set size.
func rssMiB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n / 1024
		}
	}
	return 0
}
