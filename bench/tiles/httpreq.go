package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
)

// counter sums what a run's answers held.
type counter struct {
	n     atomic.Int64 // bytes
	feats atomic.Int64 // GeoJSON features (items pages)
}

// httpRequester asks a server for paths in turn through benchkit's wire
// client (persistent connections, pre-encoded requests); 200 and 204
// (an empty tile) are answers, anything else an error.
type httpRequester struct {
	wire  *benchkit.WireClient
	reqs  [][]byte
	count *counter
}

// newHTTPRequester prepares the requests of paths, each prefixed with
// prefix, to addr (host:port), with the header lines header (each ending
// in CRLF); count, when not nil, sums the answers.
func newHTTPRequester(addr string, paths []string, prefix, header string, count *counter) (*httpRequester, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no requests to make")
	}
	r := &httpRequester{wire: benchkit.NewWireClient(addr), count: count}
	// A cold tile of a large layer can take seconds under load.
	r.wire.Timeout = 5 * time.Minute
	for _, p := range paths {
		r.reqs = append(r.reqs, r.wire.RequestWith(prefix+p, header))
	}
	return r, nil
}

var featureMark = []byte(`"Feature"`)

// Do sends request i (modulo the list).
func (r *httpRequester) Do(ctx context.Context, i int) error {
	return r.wire.Do(ctx, r.reqs[i%len(r.reqs)], func(status int, body []byte) error {
		if status != http.StatusOK && status != http.StatusNoContent {
			return fmt.Errorf("status %d: %.300s", status, body)
		}
		if r.count != nil {
			r.count.n.Add(int64(len(body)))
			if len(body) > 0 && body[0] == '{' {
				r.count.feats.Add(int64(bytes.Count(body, featureMark)))
			}
		}
		return nil
	})
}

// check asks for the first request and wants a GeoJSON page of want
// features.
func (r *httpRequester) check(ctx context.Context, want int) error {
	return r.wire.Do(ctx, r.reqs[0], func(status int, body []byte) error {
		if n := bytes.Count(body, featureMark); status != http.StatusOK || n != want {
			return fmt.Errorf("status %d, %d features, not %d: %.300s", status, n, want, body)
		}
		return nil
	})
}
