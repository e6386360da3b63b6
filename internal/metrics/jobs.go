package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/geopub/geopub/internal/jobs"
)

type jobMetrics struct {
	events   *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newJobMetrics() *jobMetrics {
	labels := []string{"kind", "state"}
	return &jobMetrics{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "jobs_total",
			Help: "Job state changes in this process (running, completed, retryable, discarded, cancelled, scheduled), by job kind and state.",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "job_run_duration_seconds",
			Help: "Run time of job attempts this process worked, by job kind and the state the attempt ended in.",
			// 0.1 s up to about 7 hours.
			Buckets: prometheus.ExponentialBuckets(0.1, 4, 10),
		}, labels),
	}
}

func (j *jobMetrics) register(reg *prometheus.Registry) {
	reg.MustRegister(j.events, j.duration)
}

// ObserveJob records a job event; pass it to jobs.Jobs.OnEvent. Attempts
// that ended with a run time also feed the duration histogram.
func (m *Metrics) ObserveJob(_ context.Context, e jobs.JobEvent) {
	labels := prometheus.Labels{"kind": e.Kind, "state": string(e.State)}
	m.jobs.events.With(labels).Inc()
	if e.State != jobs.StateRunning && e.RunDuration > 0 {
		m.jobs.duration.With(labels).Observe(e.RunDuration.Seconds())
	}
}

// queueTimeout bounds the count query of one scrape.
const queueTimeout = 5 * time.Second

// queueCollector reads the queue depth from the database at each scrape.
type queueCollector struct {
	count  func(context.Context) ([]jobs.QueueCount, error)
	queues []string
	desc   *prometheus.Desc
}

// activeStates are the states of unfinished jobs, reported for every
// queue even when no job is in them (a 0 rather than no series).
var activeStates = []jobs.State{jobs.StateAvailable, jobs.StateScheduled, jobs.StateRetryable, jobs.StateRunning}

// QueueDepth is a collector of geopub_job_queue_jobs{queue,state}, read
// through count (jobs.Jobs.Counts) at each scrape; queues are reported
// with zeros when empty.
func QueueDepth(count func(context.Context) ([]jobs.QueueCount, error), queues ...string) prometheus.Collector {
	return &queueCollector{count: count, queues: queues, desc: prometheus.NewDesc(namespace+"_job_queue_jobs",
		"Jobs in the database by queue and state, across every process (finished jobs until River's retention removes them).",
		[]string{"queue", "state"}, nil)}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), queueTimeout)
	defer cancel()
	counts, err := c.count(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	seen := map[[2]string]bool{}
	for _, q := range counts {
		seen[[2]string{q.Queue, string(q.State)}] = true
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(q.Count), q.Queue, string(q.State))
	}
	for _, q := range c.queues {
		for _, s := range activeStates {
			if !seen[[2]string{q, string(s)}] {
				ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 0, q, string(s))
			}
		}
	}
}
