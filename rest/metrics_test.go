package rest_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
)

// scrape reads /metrics as key and parses it with Prometheus's own text
// parser.
func scrape(t *testing.T, e *env, key string) map[string]*dto.MetricFamily {
	t.Helper()
	r := e.Do(t, req{Path: e.HTTP.URL + "/metrics", Key: key})
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics = %d %q: %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	return parseMetrics(t, r.Body)
}

func parseMetrics(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, body)
	}
	return fams
}

// sample is the value of the series of family name whose labels include
// want (a counter's or gauge's value, a histogram's count); ok is false
// when there is none.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) (v float64, ok bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, w := range want {
			if labels[k] != w {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// Issue 12: "`/metrics` in Prometheus format (request counts and latency
// by route and status, job counts and durations by kind and state, queue
// depth, point-query index memory, database pool stats)". On the main
// address only site administrators may read it.
func TestMetrics(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		pub := e.NewUser(t, "Publisher")

		// Anonymous 401, another user 403, both as JSON details.
		for _, c := range []struct {
			key    string
			status int
		}{{"", http.StatusUnauthorized}, {pub.Key, http.StatusForbidden}} {
			r := e.Do(t, req{Path: e.HTTP.URL + "/metrics", Key: c.key})
			expectStatus(t, r, c.status)
			if r.Detail(t) == "" {
				t.Fatalf("%d without detail: %s", c.status, r.Body)
			}
		}

		before := scrape(t, e, admin.Key)
		// Requests on routes with ids, an unmatched path, then an import.
		src := upload(t, e, pub.Key, map[string][]byte{"roads.geojson": []byte(fixtureFiles["roads.geojson"])})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		roads := datasources(t, e, pub.Key, src.ID)["roads.geojson"]
		var l layerRecord
		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Roads", "data": map[string]any{"datasources": []int{roads.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &l)
		if l = waitVersion(t, e, pub.Key, l.ThisVersion); l.Version.Status != "ok" {
			t.Fatalf("import %+v", l)
		}
		e.Do(t, req{Path: e.HTTP.URL + "/no/such/path/12345", Key: pub.Key})
		// River records a job's end (and reports it) a moment after the
		// worker returns, which may be after the version says "ok".
		var fams map[string]*dto.MetricFamily
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			fams = scrape(t, e, admin.Key)
			n, _ := sample(fams, "geopub_jobs_total", map[string]string{"kind": "import", "state": "completed"})
			if n >= 1 || time.Now().After(deadline) {
				break
			}
		}

		// Requests by route pattern, never by raw path.
		for name, f := range map[string]*dto.MetricFamily{"requests": fams["geopub_http_requests_total"], "latency": fams["geopub_http_request_duration_seconds"]} {
			if f == nil {
				t.Fatalf("no %s family", name)
			}
			for _, m := range f.Metric {
				for _, lp := range m.Label {
					if lp.GetName() == "route" && (strings.Contains(lp.GetValue(), fmt.Sprint(src.ID)+"/") && !strings.Contains(lp.GetValue(), "{") ||
						strings.Contains(lp.GetValue(), "12345")) {
						t.Fatalf("route label %q is a raw path", lp.GetValue())
					}
				}
			}
		}
		versionRoute := map[string]string{"route": "/services/api/{version}/layers/{lid}/versions/{vid}", "method": "GET", "status": "200"}
		if n, ok := sample(fams, "geopub_http_requests_total", versionRoute); !ok || n < 1 {
			routes := map[string]bool{}
			for _, m := range fams["geopub_http_requests_total"].Metric {
				for _, lp := range m.Label {
					if lp.GetName() == "route" {
						routes[lp.GetValue()] = true
					}
				}
			}
			t.Fatalf("no GET 200 count on the version route %v: routes %v", versionRoute, routes)
		}
		if n, ok := sample(fams, "geopub_http_request_duration_seconds", versionRoute); !ok || n < 1 {
			t.Fatalf("no latency on the version route: %v", n)
		}
		if n, ok := sample(fams, "geopub_http_requests_total", map[string]string{"route": "unmatched", "status": "404"}); !ok || n < 1 {
			t.Fatal("the unmatched 404 was not counted as route=unmatched")
		}
		if n, ok := sample(fams, "geopub_http_requests_total", map[string]string{"route": "/metrics", "status": "403"}); !ok || n < 1 {
			t.Fatal("the refused scrape was not counted")
		}

		// Jobs this process worked, by kind and state, with run times.
		for _, kind := range []string{"scan", "import"} {
			done := map[string]string{"kind": kind, "state": "completed"}
			was, _ := sample(before, "geopub_jobs_total", done)
			if n, ok := sample(fams, "geopub_jobs_total", done); !ok || n < was+1 {
				t.Fatalf("%s completions %v, before %v", kind, n, was)
			}
			if n, ok := sample(fams, "geopub_jobs_total", map[string]string{"kind": kind, "state": "running"}); !ok || n < 1 {
				t.Fatalf("no running %s counted", kind)
			}
			if n, ok := sample(fams, "geopub_job_run_duration_seconds", done); !ok || n < 1 {
				t.Fatalf("no %s run time", kind)
			}
		}
		// Queue depth from the database; empty queues report 0.
		if n, ok := sample(fams, "geopub_job_queue_jobs", map[string]string{"queue": "remote", "state": "available"}); !ok || n != 0 {
			t.Fatalf("remote queue's available jobs = %v, %v; want a 0", n, ok)
		}
		if n, ok := sample(fams, "geopub_job_queue_jobs", map[string]string{"queue": "default", "state": "completed"}); !ok || n < 2 {
			t.Fatalf("queue depth of completed jobs = %v, %v", n, ok)
		}
		// Index memory and its budget; both pools.
		if _, ok := sample(fams, "geopub_query_index_bytes", nil); !ok {
			t.Fatal("no geopub_query_index_bytes")
		}
		if n, _ := sample(fams, "geopub_query_index_budget_bytes", nil); n != float64(e.Server.Query.MemoryBudget()) {
			t.Fatalf("index budget %v", n)
		}
		for _, pool := range []string{"store", "jobs"} {
			if n, ok := sample(fams, "geopub_db_pool_open_connections", map[string]string{"pool": pool}); !ok || n < 1 {
				t.Fatalf("pool %s: %v open connections", pool, n)
			}
			if _, ok := sample(fams, "geopub_db_pool_max_open_connections", map[string]string{"pool": pool}); !ok {
				t.Fatalf("pool %s: no maximum", pool)
			}
		}
		if _, ok := fams["go_goroutines"]; !ok {
			t.Fatal("no Go runtime metrics")
		}
	})
}

// --metrics-addr serves /metrics without credentials on its own listener
// (for scrapers on a private network), and nothing else.
func TestMetricsAddr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	eachWith(t, func(c *server.Config) { c.MetricsAddr = addr }, func(t *testing.T, e *env) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /metrics = %d: %s", resp.StatusCode, body.Bytes())
		}
		if _, ok := parseMetrics(t, body.Bytes())["geopub_job_queue_jobs"]; !ok {
			t.Fatal("no queue depth on the metrics address")
		}
		resp, err = http.Get("http://" + addr + "/services/api/v1.x/groups/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("the metrics address served the API: %d", resp.StatusCode)
		}
	})
}
