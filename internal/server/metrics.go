package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/metrics"
	"github.com/geopub/geopub/internal/vectortiles"
)

// newMetrics builds the process's registry: request and job instruments
// (job events from this process's job client), the queue depth read from
// River's table at scrape time, the point-query index memory and the
// store's and job system's connection pools.
func newMetrics(s *Server) (*metrics.Metrics, error) {
	m := metrics.New()
	j := s.Resolver.Jobs
	j.OnEvent(m.ObserveJob)
	cs := append(metrics.IndexMemory(s.Query.MemoryUsed, s.Query.MemoryBudget()),
		metrics.QueueDepth(j.Counts, jobs.QueueLocal, jobs.QueueRemote),
		metrics.Pools(map[string]func() sql.DBStats{"store": s.Store.DB.Stats, "jobs": j.PoolStats}))
	cs = append(cs, metrics.TilesMade(s.Tiles.Made, vectortiles.Makers[:]...)...)
	if err := m.Register(cs...); err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	return m, nil
}

// adminMetrics serves /metrics on the main address to site administrators
// (any token scope): request and job figures are operational detail, not
// for the public. Scrapers use a site administrator's token, or
// Config.MetricsAddr on a private network.
func (s *Server) adminMetrics(w http.ResponseWriter, r *http.Request) {
	if _, err := access.RequireSiteAdmin(r.Context(), ""); err != nil {
		e := apperr.As(err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.Code.HTTPStatus())
		_ = json.NewEncoder(w).Encode(map[string]string{"detail": e.Message})
		return
	}
	s.Metrics.Handler().ServeHTTP(w, r)
}

// startMetrics serves /metrics on Config.MetricsAddr, when set, until
// stopMetrics.
func (s *Server) startMetrics() error {
	if s.cfg.MetricsAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.MetricsAddr)
	if err != nil {
		return fmt.Errorf("listening for metrics on %s: %w", s.cfg.MetricsAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.Metrics.Handler())
	s.metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.metricsSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("serving metrics", "addr", s.cfg.MetricsAddr, "err", err)
		}
	}()
	s.logger.Info("metrics listening", "addr", ln.Addr().String())
	return nil
}

// stopMetrics closes the metrics listener.
func (s *Server) stopMetrics(ctx context.Context) {
	if s.metricsSrv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = s.metricsSrv.Shutdown(ctx)
	s.metricsSrv = nil
}
