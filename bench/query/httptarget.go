package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
)

// httpTarget queries the vector API (or /healthz) over HTTP on loopback,
// with the wire client (default) or net/http's.
type httpTarget struct {
	wire    *benchkit.WireClient
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
	t.wire = benchkit.NewWireClient(addr)
	for _, p := range paths {
		t.reqs = append(t.reqs, t.wire.Request(p))
	}
	return t
}

func newHTTPTarget(info serverInfo, at area, radius, maxResults int, netHTTP bool) *httpTarget {
	return newTarget("vector", info.Addr, vectorPaths(info, at, radius, maxResults), netHTTP)
}

// vectorPaths are the point queries the vector targets send.
func vectorPaths(info serverInfo, at area, radius, maxResults int) []string {
	var paths []string
	for i := range nQueries {
		x, y := at.queryPoint(i)
		v := url.Values{"key": {info.Key}, "layer": {fmt.Sprint(info.Layer)}, "x": {fmt.Sprint(x)}, "y": {fmt.Sprint(y)},
			"radius": {fmt.Sprint(radius)}, "max_results": {fmt.Sprint(maxResults)}}
		paths = append(paths, "/services/query/v1/vector.json?"+v.Encode())
	}
	return paths
}

func newHealthTarget(info serverInfo, netHTTP bool) *httpTarget {
	return newTarget("healthz", info.Addr, []string{"/healthz"}, netHTTP)
}

func (t *httpTarget) name() string { return t.label }

func (t *httpTarget) run(ctx context.Context, c int, d time.Duration) (benchkit.Stats, error) {
	return benchkit.Load(ctx, t, c, d)
}

func (t *httpTarget) Do(ctx context.Context, i int) error {
	if t.wire != nil {
		return t.wire.Do(ctx, t.reqs[i%len(t.reqs)], t.check)
	}
	status, body, err := t.netHTTP(ctx, t.urls[i%len(t.urls)])
	if err != nil {
		return err
	}
	return t.check(status, body)
}

// check wants a 200 and, the first time for vector queries, an answer
// of some length.
func (t *httpTarget) check(status int, body []byte) error {
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
func (t *httpTarget) warm(ctx context.Context) error { return t.Do(ctx, 0) }
