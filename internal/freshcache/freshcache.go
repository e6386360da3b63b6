// Package freshcache remembers values for a freshness window: the read
// services (point queries, tiles) keep a layer's description and a
// caller's access to it for a few seconds, so a busy client does not read
// them again for every request, while publishes and permission changes
// still arrive within the window.
package freshcache

import (
	"sync"
	"time"
)

// MaxEntries bounds a cache; beyond it, it starts again empty (entries
// are cheap to make again).
const MaxEntries = 100000

// Cache maps K to V until each entry's expiry. The zero value is ready;
// it is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]entry[V]
}

type entry[V any] struct {
	v       V
	expires time.Time
}

// Get returns the value of k when it is still fresh at now.
func (c *Cache[K, V]) Get(k K, now time.Time) (V, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put remembers v for k until until.
func (c *Cache[K, V]) Put(k K, v V, until time.Time) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= MaxEntries {
		c.m = map[K]entry[V]{}
	}
	c.m[k] = entry[V]{v: v, expires: until}
	c.mu.Unlock()
}
