package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/geopub/geopub/bench/benchkit"
)

// measured is one run.
type measured struct {
	s            benchkit.Stats
	bytes, feats int64
	err          error
}

// table holds the runs by case ("points z8", "healthz", "points items")
// and peer ("SQLite cold", "PostGIS ST_AsMVT", "MapServer OGC API").
type table struct {
	cases []string
	runs  map[string]map[string]measured
	peers map[string][]string // in the order they ran
}

// add records a run and prints it.
func (t *table) add(cas, peer string, s benchkit.Stats, err error, c *counter) {
	if t.runs == nil {
		t.runs, t.peers = map[string]map[string]measured{}, map[string][]string{}
	}
	if t.runs[cas] == nil {
		t.runs[cas] = map[string]measured{}
		t.cases = append(t.cases, cas)
	}
	m := measured{s: s, err: err}
	if c != nil {
		m.bytes, m.feats = c.n.Load(), c.feats.Load()
	}
	t.runs[cas][peer] = m
	t.peers[cas] = append(t.peers[cas], peer)
	if err != nil {
		fmt.Printf("%-16s %-20s failed: %v\n", cas, peer, err)
		return
	}
	fmt.Printf("%-16s %-20s %8s/s  p50 %9s  p99 %9s  (%d)%s\n", cas, peer, rate(s.Rate), s.P50, s.P99, s.N, m.size())
}

// rate prints a throughput with a decimal when it is small.
func rate(r float64) string {
	if r < 100 {
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.0f", r)
}

// size is the mean answer of a run: KiB, and features for pages.
func (m measured) size() string {
	if m.s.N == 0 || m.bytes == 0 {
		return ""
	}
	out := fmt.Sprintf("  %.1f KiB", float64(m.bytes)/float64(m.s.N)/1024)
	if m.feats > 0 {
		out += fmt.Sprintf(", %.0f features", float64(m.feats)/float64(m.s.N))
	}
	return out
}

// print writes every run and then the targets: cached tiles at least
// half of /healthz, cold tiles at least PostGIS's ST_AsMVT, items pages
// at least twice MapServer's.
func (t *table) print(stores []store) {
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\trun\tper s\tp50\tp99\trequests\tmean answer\t")
	for _, cas := range t.cases {
		for _, peer := range t.peers[cas] {
			m := t.runs[cas][peer]
			if m.err != nil {
				fmt.Fprintf(tw, "%s\t%s\tfailed\t\t\t\t\t\n", cas, peer)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t\n", cas, peer, rate(m.s.Rate), m.s.P50, m.s.P99, m.s.N, m.size())
		}
	}
	tw.Flush()

	fmt.Println()
	tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tcase\tours\tpeer\tratio\tholds\t")
	ratio := func(label, cas, ours, peer string, want float64) {
		o, ok1 := t.runs[cas][ours]
		p, ok2 := t.runs[cas][peer]
		if !ok1 || !ok2 || o.err != nil || p.err != nil || p.s.Rate == 0 {
			return
		}
		r := o.s.Rate / p.s.Rate
		holds := "yes"
		if r < want {
			holds = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s/s\t%s %s/s\t%.3f\t%s\t\n", label, cas, ours, rate(o.s.Rate), peer, rate(p.s.Rate), r, holds)
	}
	for _, st := range stores {
		for _, l := range layerNames {
			for _, z := range zooms {
				cas := tileCase(l, z)
				peer := healthzPeer(st.name, cas)
				if h, ok := t.runs["healthz"][peer]; ok {
					t.runs[cas]["/healthz "+peer] = h
				}
				ratio("cached ≥ ½ /healthz", cas, st.name+" cached", "/healthz "+peer, 0.5)
			}
		}
		for _, l := range layerNames {
			for _, z := range zooms {
				ratio("cold ≥ ST_AsMVT", tileCase(l, z), st.name+" cold", "PostGIS ST_AsMVT", 1)
				ratio("(index not built)", tileCase(l, z), st.name+" cold, store", "PostGIS ST_AsMVT", 1)
			}
		}
		for _, l := range layerNames {
			ratio("items ≥ 2 × MapServer", itemsCase(l), st.name, "MapServer OGC API", 2)
		}
	}
	tw.Flush()
}

// healthzPeer names the /healthz run made just before a cached case.
func healthzPeer(store, cas string) string { return store + ", before " + cas }
