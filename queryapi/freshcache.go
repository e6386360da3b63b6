package queryapi

import (
	"sync"
	"time"
)

// freshCache remembers values for a freshness window, so that publishes
// and permission changes reach point queries within it while repeated
// queries skip the database. It is safe for concurrent use.
type freshCache[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]freshEntry[V]
}

type freshEntry[V any] struct {
	v       V
	expires time.Time
}

// maxFreshEntries bounds each cache; beyond it, it starts again empty.
const maxFreshEntries = 100000

// get returns the value of k when it is still fresh at now.
func (c *freshCache[K, V]) get(k K, now time.Time) (V, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// put remembers v for k until until.
func (c *freshCache[K, V]) put(k K, v V, until time.Time) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxFreshEntries {
		c.m = map[K]freshEntry[V]{}
	}
	c.m[k] = freshEntry[V]{v: v, expires: until}
	c.mu.Unlock()
}
