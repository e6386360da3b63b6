// Package freshcache remembers values for a freshness window: the read
// services (point queries, tiles, OGC API Features, WFS) keep a layer's
// description and a caller's access to it for a moment, so a busy client
// does not read them again for every request.
//
// A change that bears on access (a permission, a service switch, a
// publish, a token, a user or a session; see internal/store's access
// hook) calls Invalidate, in the process that made it and, through the
// database's change signal, in every other process sharing the database:
// each cache then answers as if empty, so revoked access is refused by
// every replica's next request, not the window's end (issue 24). The
// window only bounds what an invalidation could miss.
package freshcache

import (
	"sync"
	"sync/atomic"
	"time"
)

// MaxEntries bounds a cache; beyond it, it starts again empty (entries
// are cheap to make again).
const MaxEntries = 100000

// epoch counts invalidations; an entry made under an earlier one is gone.
var epoch atomic.Uint64

// Invalidate forgets every entry of every cache in the process.
func Invalidate() { epoch.Add(1) }

// Epoch is the current invalidation count, for caches of other shapes
// that keep it beside their entries and compare it on use.
func Epoch() uint64 { return epoch.Load() }

// Cache maps K to V until each entry's expiry or the next Invalidate. The
// zero value is ready; it is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]entry[V]
}

type entry[V any] struct {
	v       V
	expires time.Time
	epoch   uint64
}

// Get returns the value of k when it is still fresh at now.
func (c *Cache[K, V]) Get(k K, now time.Time) (V, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if !ok || !now.Before(e.expires) || e.epoch != epoch.Load() {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put remembers v for k until until. Callers read Epoch before they
// compute v and pass it through PutAt when an invalidation may happen
// meanwhile; Put stamps the current one.
func (c *Cache[K, V]) Put(k K, v V, until time.Time) { c.PutAt(k, v, until, epoch.Load()) }

// PutAt remembers v, computed under the invalidation count at, for k: a
// value computed before an invalidation is never kept past it.
func (c *Cache[K, V]) PutAt(k K, v V, until time.Time, at uint64) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= MaxEntries {
		c.m = map[K]entry[V]{}
	}
	c.m[k] = entry[V]{v: v, expires: until, epoch: at}
	c.mu.Unlock()
}
