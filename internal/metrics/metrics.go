package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every Geopub metric.
const namespace = "geopub"

// Metrics is one process's registry and the instruments Geopub updates.
type Metrics struct {
	reg  *prometheus.Registry
	http *httpMetrics
	jobs *jobMetrics
}

// New builds a registry with the HTTP and job instruments and the Go
// runtime and process collectors; add the scrape-time collectors
// (queue depth, index memory, pools) with Register.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{reg: reg, http: newHTTPMetrics(), jobs: newJobMetrics()}
	m.http.register(reg)
	m.jobs.register(reg)
	return m
}

// Register adds collectors to the registry.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Handler serves the registry in the Prometheus exposition format. A
// collector that fails (the database unreachable for the queue counts)
// leaves its metrics out and the rest are still served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Gatherer is the registry, for tests and embedding.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }
