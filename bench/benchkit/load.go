package benchkit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Stats are one load run's figures: requests per second and latency
// percentiles.
type Stats struct {
	Rate     float64
	P50, P99 time.Duration
	N        int // requests finished
}

// Requester sends one request at a time; i (from 1, one more for each
// request of a run, whichever worker sends it) picks what to ask.
type Requester interface {
	Do(ctx context.Context, i int) error
}

// RequesterFunc adapts a function to Requester.
type RequesterFunc func(ctx context.Context, i int) error

// Do calls f.
func (f RequesterFunc) Do(ctx context.Context, i int) error { return f(ctx, i) }

// Load runs c workers sending requests of t for d, each as soon as its
// last one is answered, and measures them; the first error ends the run.
func Load(ctx context.Context, t Requester, c int, d time.Duration) (Stats, error) {
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
				if err := t.Do(ctx, int(next.Add(1))); err != nil {
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
		return Stats{}, first
	}
	return Measured(lat, time.Since(start))
}

// Measured summarises the latencies of a run that took elapsed.
func Measured(lat []time.Duration, elapsed time.Duration) (Stats, error) {
	slices.Sort(lat)
	if len(lat) == 0 {
		return Stats{}, fmt.Errorf("no requests finished")
	}
	pct := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(float64(len(lat))*p))].Round(10 * time.Microsecond)
	}
	return Stats{Rate: float64(len(lat)) / elapsed.Seconds(), P50: pct(0.50), P99: pct(0.99), N: len(lat)}, nil
}
