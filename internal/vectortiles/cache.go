package vectortiles

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"context"
	"sync"
)

// cacheKey names one layer's tile of one published version.
type cacheKey struct {
	version int
	tile    Tile
}

// entry is a cached tile: body is the single-layer MVT (nil: empty),
// gzipped its gzip form, made on first demand. ready closes once body is
// made (by the first request to ask for it).
type entry struct {
	key    cacheKey
	ready  chan struct{}
	body   []byte
	err    error
	elem   *list.Element
	gzOnce sync.Once
	gz     []byte
}

// size is what an entry costs the budget: its body, room for its gzip
// form (never larger than the body for a tile worth compressing) and
// bookkeeping.
func (e *entry) size() int64 { return int64(2*len(e.body)) + 128 }

// gzipped returns the gzip form of the body, made once.
func (e *entry) gzipped() []byte {
	e.gzOnce.Do(func() {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		_, _ = w.Write(e.body)
		_ = w.Close()
		e.gz = b.Bytes()
	})
	return e.gz
}

// cache is a memory LRU of tiles bounded in bytes; concurrent requests
// for a tile not yet made wait for the first one's.
type cache struct {
	budget int64

	mu      sync.Mutex
	entries map[cacheKey]*entry
	lru     *list.List // of *entry, most recent first; only made entries
	used    int64
}

func newCache(budget int64) *cache {
	return &cache{budget: budget, entries: map[cacheKey]*entry{}, lru: list.New()}
}

// get returns the tile of key, making it with build on a miss (build
// runs to the end even when ctx ends, for the others waiting on it); hit
// reports whether it was already there. A caller waiting for another's
// build gives up when ctx ends.
func (c *cache) get(ctx context.Context, k cacheKey, build func() ([]byte, error)) (e *entry, hit bool, err error) {
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
	e = &entry{key: k, ready: make(chan struct{})}
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
func (c *cache) evict() {
	for c.used > c.budget && c.lru.Len() > 0 {
		last := c.lru.Back()
		e := last.Value.(*entry)
		c.lru.Remove(last)
		e.elem = nil
		delete(c.entries, e.key)
		c.used -= e.size()
	}
}

// bytes is the memory the cached tiles hold.
func (c *cache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
