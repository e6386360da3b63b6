package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
)

// unmatchedRoute labels requests no route matched.
const unmatchedRoute = "unmatched"

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics() *httpMetrics {
	labels := []string{"route", "method", "status"}
	return &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by route pattern, method and status.",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time from a request's arrival until its handler returned, by route pattern, method and status.",
			Buckets: []float64{.002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, labels),
	}
}

func (h *httpMetrics) register(reg *prometheus.Registry) {
	reg.MustRegister(h.requests, h.duration)
}

// Middleware counts and times every request. Install it on the root chi
// router: the route label is the pattern chi matched, read once the
// handler has returned (unmatched when none did).
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		route := unmatchedRoute
		if rc := chi.RouteContext(r.Context()); rc != nil {
			if p := rc.RoutePattern(); p != "" {
				route = plainPattern(p)
			}
		}
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK // nothing written: net/http sends 200
		}
		labels := prometheus.Labels{"route": route, "method": methodLabel(r.Method), "status": strconv.Itoa(status)}
		m.http.requests.With(labels).Inc()
		m.http.duration.With(labels).Observe(time.Since(start).Seconds())
	})
}

// methodLabel keeps the method label to the standard methods, whatever
// clients send.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

// plainPattern drops the regular expressions of a chi pattern's
// parameters: /layers/{lid:[0-9]+} becomes /layers/{lid}.
func plainPattern(p string) string {
	if !strings.Contains(p, ":") {
		return p
	}
	var b strings.Builder
	depth, skipping := 0, false
	for _, c := range p {
		switch {
		case c == '{':
			depth++
			if depth == 1 {
				b.WriteRune(c)
				continue
			}
		case c == '}':
			depth--
			if depth == 0 {
				skipping = false
				b.WriteRune(c)
				continue
			}
		case c == ':' && depth == 1:
			skipping = true
		}
		if !skipping {
			b.WriteRune(c)
		}
	}
	return b.String()
}
