package metrics

import (
	"database/sql"

	"github.com/prometheus/client_golang/prometheus"
)

// IndexMemory is the collectors of the feature indexes' memory (point
// queries' and vector tiles'): used (an estimate of the bytes the cached
// indexes hold) and budget.
func IndexMemory(used func() int64, budget int64) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "query", Name: "index_bytes",
			Help: "Estimated memory held by the cached feature indexes (point queries and vector tiles).",
		}, func() float64 { return float64(used()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "query", Name: "index_budget_bytes",
			Help: "Memory budget of the feature indexes; the least recently used are dropped beyond it.",
		}, func() float64 { return float64(budget) }),
	}
}

// TilesMade is the counter of vector tiles made (cache misses) by each of
// makers, read through made at scrape time.
func TilesMade(made func(maker string) int64, makers ...string) []prometheus.Collector {
	cs := make([]prometheus.Collector, 0, len(makers))
	for _, m := range makers {
		cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "tiles", Name: "made_total",
			Help:        "Vector tiles made on a cache miss, by maker: the in-memory feature index, PostGIS, or the store.",
			ConstLabels: prometheus.Labels{"maker": m},
		}, func() float64 { return float64(made(m)) }))
	}
	return cs
}

// poolCollector reports database connection pools.
type poolCollector struct {
	pools                                    map[string]func() sql.DBStats
	maxOpen, open, inUse, idle, waits, waitS *prometheus.Desc
}

// Pools is a collector of geopub_db_pool_* for the named pools, each read
// through its stats function at scrape time.
func Pools(pools map[string]func() sql.DBStats) prometheus.Collector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(namespace+"_db_pool_"+name, help, []string{"pool"}, nil)
	}
	return &poolCollector{
		pools:   pools,
		maxOpen: d("max_open_connections", "Connections the pool may open (0: unlimited)."),
		open:    d("open_connections", "Connections open, in use or idle."),
		inUse:   d("in_use_connections", "Connections in use."),
		idle:    d("idle_connections", "Idle connections."),
		waits:   d("waits_total", "Times a caller had to wait for a connection."),
		waitS:   d("wait_seconds_total", "Total time callers waited for a connection."),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.maxOpen, c.open, c.inUse, c.idle, c.waits, c.waitS} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for name, stats := range c.pools {
		s := stats()
		ch <- prometheus.MustNewConstMetric(c.maxOpen, prometheus.GaugeValue, float64(s.MaxOpenConnections), name)
		ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(s.OpenConnections), name)
		ch <- prometheus.MustNewConstMetric(c.inUse, prometheus.GaugeValue, float64(s.InUse), name)
		ch <- prometheus.MustNewConstMetric(c.idle, prometheus.GaugeValue, float64(s.Idle), name)
		ch <- prometheus.MustNewConstMetric(c.waits, prometheus.CounterValue, float64(s.WaitCount), name)
		ch <- prometheus.MustNewConstMetric(c.waitS, prometheus.CounterValue, s.WaitDuration.Seconds(), name)
	}
}
