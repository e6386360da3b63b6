package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/versiondiff"
)

// report is what a measured child prints on stdout.
type report struct {
	Counts     counts        `json:"counts"`
	Wall       time.Duration `json:"wall"`        // the diff alone, connected
	MaxRSS     int64         `json:"max_rss"`     // bytes, VmHWM
	PeakHeap   uint64        `json:"peak_heap"`   // bytes, sampled
	TotalAlloc uint64        `json:"total_alloc"` // bytes
}

// measure runs diff with a Go heap sampler and prints the report.
func measure(cpuProfile string, diff func() (counts, error)) error {
	stopProfile, err := benchkit.Profile(cpuProfile)
	if err != nil {
		return err
	}
	peak := make(chan uint64)
	stop := make(chan struct{})
	go benchkit.SamplePeakHeap(stop, peak)
	start := time.Now()
	c, err := diff()
	wall := time.Since(start)
	stopProfile()
	close(stop)
	if err != nil {
		return err
	}
	r := report{Counts: c, Wall: wall, MaxRSS: benchkit.VmHWM(), PeakHeap: <-peak}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.TotalAlloc = ms.TotalAlloc
	return json.NewEncoder(os.Stdout).Encode(r)
}

// version is A or B as the diff is given it: published (frozen), so the
// diff walks their stored key orders (built by loadStore, as the change
// feed's count job builds them after each publish).
func version(id int) versiondiff.Version {
	return versiondiff.Version{ID: id, Fields: fields, PrimaryKey: []string{"id"}, CRS: "EPSG:4326", GeometryType: "point", Frozen: true}
}

// diffChild times versiondiff.Compare from A to B by id on a store loaded
// by loadStore, and checks what it finds against the generator.
func diffChild(ctx context.Context, dbURL, dataDir string, n int, countOnly bool, cpuProfile string) error {
	st, err := store.Open(ctx, store.Config{DatabaseURL: dbURL, DataDir: dataDir})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.DB.PingContext(ctx); err != nil {
		return err
	}
	want := expected(n)
	return measure(cpuProfile, func() (counts, error) {
		var seen counts
		var geom int64
		var fn func(versiondiff.Change) error
		if !countOnly {
			fn = func(c versiondiff.Change) error {
				switch {
				case c.Op == versiondiff.Insert && c.Old == nil && c.New != nil:
					seen.Inserts++
				case c.Op == versiondiff.Delete && c.Old != nil && c.New == nil:
					seen.Deletes++
				case c.Op == versiondiff.Update && c.Old != nil && c.New != nil:
					seen.Updates++
					if c.GeometryChanged {
						geom++
					}
				default:
					return fmt.Errorf("a malformed change: %+v", c)
				}
				return nil
			}
		}
		d, err := versiondiff.Compare(ctx, st, version(versionA), version(versionB), versiondiff.Options{CountOnly: countOnly}, fn)
		if err != nil {
			return counts{}, err
		}
		got := counts{Inserts: d.Counts.Inserts, Updates: d.Counts.Updates, Deletes: d.Counts.Deletes}
		switch {
		case !d.Complete || got != want:
			return got, fmt.Errorf("versiondiff.Compare found %+v (complete %v), the generator changed %+v", got, d.Complete, want)
		case !countOnly && seen != want:
			return got, fmt.Errorf("fn was called with %+v, the generator changed %+v", seen, want)
		case !countOnly && geom != want.Updates/2:
			return got, fmt.Errorf("%d updates moved the point, the generator moved %d", geom, want.Updates/2)
		case !d.Schema.Empty():
			return got, fmt.Errorf("a schema change between equal schemas: %+v", d.Schema)
		}
		return got, nil
	})
}

// postgisQuery is the baseline: the changed rows of the FULL OUTER JOIN of
// a and b on id, old and new, to the client.
func postgisQuery() string {
	var sel, as, bs []string
	for _, c := range postgisColumns {
		sel = append(sel, "a."+c, "b."+c)
		as = append(as, "a."+c)
		bs = append(bs, "b."+c)
	}
	return "SELECT a.id, b.id, ST_AsBinary(a.geom), ST_AsBinary(b.geom), " + strings.Join(sel, ", ") +
		" FROM a FULL OUTER JOIN b USING (id)" +
		" WHERE a.id IS NULL OR b.id IS NULL OR a.geom IS DISTINCT FROM b.geom" +
		" OR (" + strings.Join(as, ", ") + ") IS DISTINCT FROM (" + strings.Join(bs, ", ") + ")"
}

// postgisChild times postgisQuery, decoding every row into Go values as
// a client would, and checks the counts against the generator.
func postgisChild(ctx context.Context, dbURL string, n int, cpuProfile string) error {
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return err
	}
	want := expected(n)
	return measure(cpuProfile, func() (counts, error) {
		rows, err := db.QueryContext(ctx, postgisQuery())
		if err != nil {
			return counts{}, err
		}
		defer rows.Close()
		var (
			got              counts
			aid, bid         sql.NullInt64
			ag, bg           []byte
			aname, bname     sql.NullString
			acat, bcat       sql.NullString
			aval, bval       sql.NullFloat64
			asurv, bsurv     sql.NullTime
			aactive, bactive sql.NullBool
		)
		for rows.Next() {
			if err := rows.Scan(&aid, &bid, &ag, &bg, &aname, &bname, &acat, &bcat, &aval, &bval,
				&asurv, &bsurv, &aactive, &bactive); err != nil {
				return got, err
			}
			switch {
			case !aid.Valid:
				got.Inserts++
			case !bid.Valid:
				got.Deletes++
			default:
				got.Updates++
			}
		}
		if err := rows.Err(); err != nil {
			return got, err
		}
		if got != want {
			return got, fmt.Errorf("the join found %+v, the generator changed %+v", got, want)
		}
		return got, nil
	})
}
