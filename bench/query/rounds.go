package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
)

// target is something put under load: it runs c clients for d and
// measures them.
type target interface {
	name() string
	run(ctx context.Context, c int, d time.Duration) (benchkit.Stats, error)
}

// measurements are every run's stats: by target, concurrency, round.
type measurements map[string]map[int][]benchkit.Stats

// measure runs rounds of every target at every concurrency, interleaved
// (round 1 of all targets, then round 2, ...), printing each run.
func measure(ctx context.Context, targets []target, conc []int, o options) (measurements, error) {
	m := measurements{}
	for _, t := range targets {
		m[t.name()] = map[int][]benchkit.Stats{}
	}
	fmt.Printf("\n%-5s %-10s %4s %10s %9s %9s\n", "round", "target", "c", "req/s", "p50", "p99")
	for r := 1; r <= o.rounds; r++ {
		for _, c := range conc {
			for _, t := range targets {
				s, err := t.run(ctx, c, o.dur)
				if err != nil {
					return nil, fmt.Errorf("%s at %d: %w", t.name(), c, err)
				}
				m[t.name()][c] = append(m[t.name()][c], s)
				fmt.Printf("%-5d %-10s %4d %10.0f %9s %9s\n", r, t.name(), c, s.Rate, s.P50, s.P99)
			}
		}
	}
	return m, nil
}

// summary prints the median of the rounds per target and concurrency, and
// at concurrency 8 the targets: the ratios are medians of each round's
// ratio, whose targets ran back to back.
func (m measurements) summary(conc []int, rounds int) {
	fmt.Printf("\nmedian of %d rounds\n%-10s %4s %10s %9s %9s\n", rounds, "target", "c", "req/s", "p50", "p99")
	for _, name := range []string{"vector", "limited", "healthz", "postgis"} {
		for _, c := range conc {
			runs, ok := m[name][c]
			if !ok {
				continue
			}
			fmt.Printf("%-10s %4d %10.0f %9s %9s\n", name, c,
				median(runs, func(s benchkit.Stats) float64 { return s.Rate }),
				time.Duration(median(runs, func(s benchkit.Stats) float64 { return float64(s.P50) })),
				time.Duration(median(runs, func(s benchkit.Stats) float64 { return float64(s.P99) })))
		}
	}
	m.limitedRatios(conc)
	v8, ok := m["vector"][8]
	if !ok {
		return
	}
	fmt.Printf("\nat concurrency 8: vector p99 %s (target < 5ms)",
		time.Duration(median(v8, func(s benchkit.Stats) float64 { return float64(s.P99) })))
	for _, other := range []struct {
		name, label string
	}{{"healthz", "the /healthz floor (target ≥ 0.5)"}, {"postgis", "PostGIS (target ≥ 3)"}} {
		o8, ok := m[other.name][8]
		if !ok {
			continue
		}
		ratios := make([]float64, len(v8))
		for i := range v8 {
			ratios[i] = v8[i].Rate / o8[i].Rate
		}
		fmt.Printf(", %.2f × %s [rounds: %s]", median(ratios, func(f float64) float64 { return f }), other.label, list(ratios))
	}
	fmt.Println()
}

func median[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func list(fs []float64) string {
	s := ""
	for i, f := range fs {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.2f", f)
	}
	return s
}

// limitedRatios prints, when the rate-limited target ran, its rate over
// the unlimited one's at each concurrency: medians of each round's ratio.
func (m measurements) limitedRatios(conc []int) {
	if _, ok := m["limited"]; !ok {
		return
	}
	fmt.Printf("\nrate limits on / off (req/s, median of the rounds' ratios; target ≥ 0.95):")
	for _, c := range conc {
		l, v := m["limited"][c], m["vector"][c]
		ratios := make([]float64, min(len(l), len(v)))
		for i := range ratios {
			ratios[i] = l[i].Rate / v[i].Rate
		}
		fmt.Printf(" c=%d %.3f [%s]", c, median(ratios, func(f float64) float64 { return f }), list(ratios))
	}
	fmt.Println()
}
