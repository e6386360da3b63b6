package ogc_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/testtier"
)

// Issue 24, 0: on SQLite, 30 clients (two thirds reading items?bbox=,
// one third posting comments) made 41 requests in 72 s: reads queued at
// the write gate holding the pool's connections, and writes, jobs and
// /readyz waited behind them. This drives that mix, short and bounded, on
// both stores: no request may take over 10 s, /readyz must answer 200
// throughout, every comment must be written, and a read the service is
// too busy for is a 503 with Retry-After, never a wait.
func TestMixedLoadStaysResponsive(t *testing.T) {
	testtier.FullOnly(t, "load test")
	const (
		clients  = 30
		duration = 6 * time.Second
		slowest  = 10 * time.Second
	)
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		owner := e.NewUser(t, "Owner")
		writer := e.NewUser(t, "Writer")
		var fs []feature
		for i := range 20000 {
			fs = append(fs, feature{int64(i + 1), pt(170+float64(i%200)*0.03, -45+float64(i/200)*0.05), map[string]any{"name": fmt.Sprint(i)}})
		}
		id := publish(t, e, owner.User, layer.TypeLayer, "Load points", "point", []schematype.Field{{Name: "name", Type: "string"}}, fs)
		items := e.HTTP.URL + "/services/ogc/features/collections/layer-" + itoa(id) + "/items"
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients + 2}}

		var (
			reads, busy, comments, ready atomic.Int64
			mu                           sync.Mutex
			failures                     []string
			worst                        time.Duration
		)
		fail := func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			if len(failures) < 10 {
				failures = append(failures, fmt.Sprintf(format, args...))
			}
		}
		do := func(req *http.Request) (int, http.Header, time.Duration) {
			start := time.Now()
			resp, err := client.Do(req)
			took := time.Since(start)
			mu.Lock()
			worst = max(worst, took)
			mu.Unlock()
			if err != nil {
				fail("%s %s: %v", req.Method, req.URL.Path, err)
				return 0, nil, took
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
			if took > slowest {
				fail("%s %s took %s", req.Method, req.URL.Path, took)
			}
			return resp.StatusCode, resp.Header, took
		}
		stop := time.Now().Add(duration)
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(c), 24))
				for n := 0; time.Now().Before(stop); n++ {
					if c%3 == 2 {
						body := fmt.Sprintf(`{"title": "Load %d-%d", "description": "A comment under load."}`, c, n)
						req, _ := http.NewRequest(http.MethodPost, e.API+"/comments", bytes.NewBufferString(body))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Authorization", "key "+writer.Key)
						if status, _, _ := do(req); status != http.StatusCreated {
							fail("POST /comments: %d", status)
						} else {
							comments.Add(1)
						}
						continue
					}
					x, y := 170+rng.Float64()*5, -45+rng.Float64()*4
					req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s?bbox=%f,%f,%f,%f&limit=100", items, x, y, x+1, y+1), nil)
					switch status, h, _ := do(req); {
					case status == http.StatusOK:
						reads.Add(1)
					case status == http.StatusServiceUnavailable && h.Get("Retry-After") != "":
						busy.Add(1)
					default:
						fail("GET items?bbox: %d", status)
					}
				}
			})
		}
		wg.Go(func() {
			for time.Now().Before(stop) {
				req, _ := http.NewRequest(http.MethodGet, e.HTTP.URL+"/readyz", nil)
				if status, _, took := do(req); status != http.StatusOK {
					fail("/readyz: %d after %s", status, took)
				} else {
					ready.Add(1)
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
		wg.Wait()
		t.Logf("%s, %d clients: %d item pages, %d busy, %d comments, %d readiness checks; slowest %s",
			duration, clients, reads.Load(), busy.Load(), comments.Load(), ready.Load(), worst)
		for _, f := range failures {
			t.Error(f)
		}
		if reads.Load() == 0 || comments.Load() == 0 {
			t.Errorf("%d item pages and %d comments: the mix did not run", reads.Load(), comments.Load())
		}
	})
}
