package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// kind is one class of request in the mix.
type kind int

const (
	read kind = iota
	busy      // a read refused as busy: 503 with Retry-After
	comment
	ready
	kinds
)

var kindNames = [kinds]string{"items pages", "busy 503", "comments", "readyz"}

// result is one store's run.
type result struct {
	dur      time.Duration
	lat      [kinds][]time.Duration
	failures map[string]int // unexpected answers and transport errors, by kind
}

// drive runs the mix at the server of info for d with c clients.
func drive(ctx context.Context, info serverInfo, c int, d time.Duration) *result {
	base := "http://" + info.Addr
	items := fmt.Sprintf("%s/services/ogc/features/collections/layer-%d/items", base, info.Layer)
	client := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: c + 2}}
	r := &result{dur: d, failures: map[string]int{}}
	var mu sync.Mutex
	record := func(k kind, took time.Duration, failure string) {
		mu.Lock()
		defer mu.Unlock()
		if failure != "" {
			r.failures[failure]++
			return
		}
		r.lat[k] = append(r.lat[k], took)
	}
	send := func(req *http.Request) (int, http.Header, time.Duration, error) {
		start := time.Now()
		resp, err := client.Do(req.WithContext(ctx))
		if err != nil {
			return 0, nil, time.Since(start), err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header, time.Since(start), nil
	}
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := range c {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 24))
			for n := 0; time.Now().Before(stop) && ctx.Err() == nil; n++ {
				if i%3 == 2 {
					body := fmt.Sprintf(`{"title": "Load %d-%d", "description": "A comment under load."}`, i, n)
					req, _ := http.NewRequest(http.MethodPost, base+"/services/api/v1.x/comments/", bytes.NewBufferString(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "key "+info.Writer)
					switch status, _, took, err := send(req); {
					case err != nil:
						record(comment, took, "comment: "+err.Error())
					case status != http.StatusCreated:
						record(comment, took, fmt.Sprintf("comment: HTTP %d", status))
					default:
						record(comment, took, "")
					}
					continue
				}
				x, y := west+rng.Float64()*(width-1), south+rng.Float64()*(height-1)
				req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s?bbox=%f,%f,%f,%f&limit=100", items, x, y, x+1, y+1), nil)
				switch status, h, took, err := send(req); {
				case err != nil:
					record(read, took, "items: "+err.Error())
				case status == http.StatusOK:
					record(read, took, "")
				case status == http.StatusServiceUnavailable && h.Get("Retry-After") != "":
					record(busy, took, "")
				default:
					record(read, took, fmt.Sprintf("items: HTTP %d", status))
				}
			}
		})
	}
	wg.Go(func() {
		for time.Now().Before(stop) && ctx.Err() == nil {
			req, _ := http.NewRequest(http.MethodGet, base+"/readyz", nil)
			switch status, _, took, err := send(req); {
			case err != nil:
				record(ready, took, "readyz: "+err.Error())
			case status != http.StatusOK:
				record(ready, took, fmt.Sprintf("readyz: HTTP %d", status))
			default:
				record(ready, took, "")
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
	wg.Wait()
	return r
}

// print writes the run's figures: throughput, then count and latency
// percentiles per kind, then the failures.
func (r *result) print(w io.Writer) {
	total := 0
	for k := range kinds {
		if k != ready {
			total += len(r.lat[k])
		}
	}
	fmt.Fprintf(w, "  %d requests in %s: %.0f req/s (readiness polls not counted)\n", total, r.dur, float64(total)/r.dur.Seconds())
	fmt.Fprintf(w, "  %-12s %8s %10s %10s %10s\n", "", "count", "p50", "p99", "max")
	for k := range kinds {
		l := r.lat[k]
		if len(l) == 0 {
			fmt.Fprintf(w, "  %-12s %8d\n", kindNames[k], 0)
			continue
		}
		slices.Sort(l)
		fmt.Fprintf(w, "  %-12s %8d %10s %10s %10s\n", kindNames[k], len(l),
			pct(l, 0.50), pct(l, 0.99), l[len(l)-1].Round(time.Millisecond))
	}
	if len(r.failures) == 0 {
		fmt.Fprintln(w, "  failures: none")
		return
	}
	for f, n := range r.failures {
		fmt.Fprintf(w, "  failure ×%d: %s\n", n, f)
	}
}

func pct(sorted []time.Duration, p float64) time.Duration {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))].Round(time.Millisecond)
}
