// Package tilecache is a memory LRU of tiles (or any encoded bodies),
// bounded in bytes, that makes each missing entry once for all the
// callers asking for it at the same time. The vector and raster tile
// services key it by published version ids, so an entry is never stale.
package tilecache

import (
	"container/list"
	"context"
	"hash/crc32"
	"strconv"
	"sync"

	"github.com/geopub/geopub/internal/gzipbody"
)

// Entry is a cached body (nil: empty), with its gzip form made on first
// demand.
type Entry[K comparable] struct {
	key    K
	ready  chan struct{}
	body   []byte
	err    error
	elem   *list.Element
	gzOnce sync.Once
	gz     []byte
	sumOne sync.Once
	sum    string
}

// NewEntry is an entry of body outside any cache (for Gzipped).
func NewEntry[K comparable](body []byte) *Entry[K] { return &Entry[K]{body: body} }

// Body is the cached body.
func (e *Entry[K]) Body() []byte { return e.body }

// size is what an entry costs the budget: its body, room for its gzip
// form (never larger than the body for a tile worth compressing) and
// bookkeeping.
func (e *Entry[K]) size() int64 { return int64(2*len(e.body)) + 128 }

// Sum is a checksum of the body (its length and CRC-32C, which the CPU
// computes at several GB/s, in base 36), made once: the part of a strong
// validator that tells apart bodies made differently for the same key.
func (e *Entry[K]) Sum() string {
	e.sumOne.Do(func() {
		e.sum = strconv.FormatUint(uint64(len(e.body))<<32|uint64(crc32.Checksum(e.body, castagnoli)), 36)
	})
	return e.sum
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Gzipped returns the gzip form of the body, made once.
func (e *Entry[K]) Gzipped() []byte {
	e.gzOnce.Do(func() { e.gz = gzipbody.Compress(e.body) })
	return e.gz
}

// Cache is a memory LRU bounded in bytes; concurrent requests for an
// entry not yet made wait for the first one's.
type Cache[K comparable] struct {
	budget int64

	mu      sync.Mutex
	entries map[K]*Entry[K]
	lru     *list.List // of *Entry, most recent first; only made entries
	used    int64
}

// New returns a cache holding at most budget bytes.
func New[K comparable](budget int64) *Cache[K] {
	return &Cache[K]{budget: budget, entries: map[K]*Entry[K]{}, lru: list.New()}
}

// Get returns the entry of key, making it with build on a miss (build
// runs to the end even when ctx ends, for the others waiting on it); hit
// reports whether it was already there. A caller waiting for another's
// build gives up when ctx ends. Failures are not kept.
func (c *Cache[K]) Get(ctx context.Context, k K, build func() ([]byte, error)) (e *Entry[K], hit bool, err error) {
	c.mu.Lock()
	if e, ok := c.entries[k]; ok {
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
		}
		c.mu.Unlock()
		select {
		case <-e.ready:
			return e, true, e.err
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	e = &Entry[K]{key: k, ready: make(chan struct{})}
	c.entries[k] = e
	c.mu.Unlock()

	e.body, e.err = build()
	c.mu.Lock()
	if e.err != nil {
		delete(c.entries, k)
	} else {
		e.elem = c.lru.PushFront(e)
		c.used += e.size()
		c.evict()
	}
	c.mu.Unlock()
	close(e.ready)
	return e, false, e.err
}

// evict drops the least recently used entries beyond the budget. Callers
// hold c.mu.
func (c *Cache[K]) evict() {
	for c.used > c.budget && c.lru.Len() > 0 {
		last := c.lru.Back()
		e := last.Value.(*Entry[K])
		c.lru.Remove(last)
		e.elem = nil
		delete(c.entries, e.key)
		c.used -= e.size()
	}
}

// Bytes is the memory the cached entries hold.
func (c *Cache[K]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
