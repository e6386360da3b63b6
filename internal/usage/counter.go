package usage

import (
	"log/slog"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/geopub/geopub/internal/flushloop"
	"github.com/geopub/geopub/internal/store"
)

// key names one row of figures.
type key struct {
	day     day
	kind    Kind
	service Service
	dataset int
	token   int
}

// shard is one lock and the cells it guards, padded so that shards do
// not share a cache line.
type shard struct {
	mu    sync.Mutex
	cells map[key]*Amounts
	_     [48]byte
}

// Counter accumulates figures in memory and writes them in batches. Its
// methods are safe for concurrent use; a nil *Counter counts nothing.
type Counter struct {
	st     *store.Store
	logger *slog.Logger
	shards []shard
	mask   uint32
	// now is the clock (tests move it across midnight).
	now func() time.Time

	// flushMu keeps flushes one at a time.
	flushMu sync.Mutex
	loop    flushloop.Loop
}

// New returns a counter writing to st.
func New(st *store.Store, logger *slog.Logger) *Counter {
	if logger == nil {
		logger = slog.Default()
	}
	// Four shards per processor, a power of two: two requests meet on a
	// lock one time in that many.
	n := 1 << bits.Len(uint(4*runtime.GOMAXPROCS(0)-1))
	c := &Counter{st: st, logger: logger, shards: make([]shard, n), mask: uint32(n - 1), now: time.Now}
	for i := range c.shards {
		c.shards[i].cells = map[key]*Amounts{}
	}
	return c
}

// Add counts a of dataset id of kind, served through service to token
// (0: none) now.
func (c *Counter) Add(kind Kind, id int, service Service, token int, a Amounts) {
	if c == nil || kind == NoKind || id <= 0 || service == NoService || service >= numServices || a.zero() {
		return
	}
	c.add(key{day: dayOf(c.now()), kind: kind, service: service, dataset: id, token: token}, a)
}

func (c *Counter) add(k key, a Amounts) {
	s := &c.shards[rand.Uint32()&c.mask]
	s.mu.Lock()
	cell := s.cells[k]
	if cell == nil {
		cell = new(Amounts)
		s.cells[k] = cell
	}
	cell.add(a)
	s.mu.Unlock()
}

// take empties the counters into one map: what a flush writes. Cells
// that counted nothing since the last take are dropped; the others are
// zeroed and kept, so that a busy key costs no allocation.
func (c *Counter) take() map[key]Amounts {
	out := map[key]Amounts{}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, cell := range s.cells {
			if cell.zero() {
				delete(s.cells, k)
				continue
			}
			sum := out[k]
			sum.add(*cell)
			out[k] = sum
			*cell = Amounts{}
		}
		s.mu.Unlock()
	}
	return out
}

// putBack returns a batch a flush could not write to the counters.
func (c *Counter) putBack(batch map[key]Amounts) {
	for k, a := range batch {
		c.add(k, a)
	}
}
