package importing

import (
	"math"
	"sync/atomic"
)

// fetchMeter carries how far an import's remote fetches have got, in
// feature units (a datasource of n features fetched halfway is n/2), from
// the reader goroutine to the writing loop, which alone touches the
// database: set never blocks, and moved holds at most one wake-up, so a
// loop busy writing rows sees only the latest figure when it next looks.
type fetchMeter struct {
	bits  atomic.Uint64
	moved chan struct{}
}

func newFetchMeter() *fetchMeter {
	return &fetchMeter{moved: make(chan struct{}, 1)}
}

// set records that units have been fetched so far and wakes the loop.
func (m *fetchMeter) set(units float64) {
	m.bits.Store(math.Float64bits(units))
	select {
	case m.moved <- struct{}{}:
	default:
	}
}

// units is the latest figure set (0 before any).
func (m *fetchMeter) units() float64 {
	return math.Float64frombits(m.bits.Load())
}
