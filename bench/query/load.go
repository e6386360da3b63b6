package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// target is something put under load: it runs c clients for d and
// measures them.
type target interface {
	name() string
	run(ctx context.Context, c int, d time.Duration) (stats, error)
}

type stats struct {
	rate     float64
	p50, p99 time.Duration
}

// requester runs one request at a time; i picks the query point.
type requester interface {
	do(ctx context.Context, i int) error
}

// load runs c workers against t for d and measures them.
func load(ctx context.Context, t requester, c int, d time.Duration) (stats, error) {
	var (
		mu    sync.Mutex
		lat   []time.Duration
		next  atomic.Int64
		first error
		wg    sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := t.do(ctx, int(next.Add(1))); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if first != nil {
		return stats{}, first
	}
	elapsed := time.Since(start)
	return measured(lat, elapsed)
}

// measured summarises the latencies of a run that took elapsed.
func measured(lat []time.Duration, elapsed time.Duration) (stats, error) {
	slices.Sort(lat)
	if len(lat) == 0 {
		return stats{}, fmt.Errorf("no requests finished")
	}
	pct := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(float64(len(lat))*p))].Round(10 * time.Microsecond)
	}
	return stats{rate: float64(len(lat)) / elapsed.Seconds(), p50: pct(0.50), p99: pct(0.99)}, nil
}

// httpTarget queries the vector API (or /healthz) over HTTP on loopback,
// with the wire client (default) or net/http's.
type httpTarget struct {
	wire    *wireClient
	reqs    [][]byte // pre-encoded requests for the wire client
	client  *http.Client
	urls    []string
	label   string
	checked atomic.Bool
}

func newTarget(label, addr string, paths []string, netHTTP bool) *httpTarget {
	t := &httpTarget{label: label}
	if netHTTP {
		t.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxIdleConns: 64}, Timeout: 10 * time.Second}
		for _, p := range paths {
			t.urls = append(t.urls, "http://"+addr+p)
		}
		return t
	}
	t.wire = newWireClient(addr)
	for _, p := range paths {
		t.reqs = append(t.reqs, t.wire.request(p))
	}
	return t
}

func newHTTPTarget(info serverInfo, at area, radius, maxResults int, netHTTP bool) *httpTarget {
	var paths []string
	for i := range nQueries {
		x, y := at.queryPoint(i)
		v := url.Values{"key": {info.Key}, "layer": {fmt.Sprint(info.Layer)}, "x": {fmt.Sprint(x)}, "y": {fmt.Sprint(y)},
			"radius": {fmt.Sprint(radius)}, "max_results": {fmt.Sprint(maxResults)}}
		paths = append(paths, "/services/query/v1/vector.json?"+v.Encode())
	}
	return newTarget("vector", info.Addr, paths, netHTTP)
}

func newHealthTarget(info serverInfo, netHTTP bool) *httpTarget {
	return newTarget("healthz", info.Addr, []string{"/healthz"}, netHTTP)
}

func (t *httpTarget) name() string { return t.label }

func (t *httpTarget) run(ctx context.Context, c int, d time.Duration) (stats, error) {
	return load(ctx, t, c, d)
}

func (t *httpTarget) do(ctx context.Context, i int) error {
	var status int
	var body []byte
	var err error
	if t.wire != nil {
		status, body, err = t.wire.do(ctx, t.reqs[i%len(t.reqs)])
	} else {
		status, body, err = t.netHTTP(ctx, t.urls[i%len(t.urls)])
	}
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("status %d: %s", status, body)
	}
	if t.label == "vector" && !t.checked.Swap(true) && len(body) < 40 {
		return fmt.Errorf("unexpected answer %s", body)
	}
	return nil
}

func (t *httpTarget) netHTTP(ctx context.Context, u string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// warm sends the first query, which builds the index.
func (t *httpTarget) warm(ctx context.Context) error { return t.do(ctx, 0) }
