package vectortiles

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// The cache makes a tile once for concurrent callers, keeps to its
// budget (least recently used out first) and never keeps a failure.
func TestCache(t *testing.T) {
	c := newCache(3 * (2*1000 + 128))
	ctx := context.Background()
	var builds atomic.Int32
	body := func() ([]byte, error) { builds.Add(1); return make([]byte, 1000), nil }
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if e, _, err := c.get(ctx, cacheKey{1, Tile{1, 0, 0}}, body); err != nil || len(e.body) != 1000 {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Fatalf("%d builds for one tile", builds.Load())
	}
	for i := range 3 {
		c.get(ctx, cacheKey{2, Tile{1, i, 0}}, body)
	}
	if _, hit, _ := c.get(ctx, cacheKey{1, Tile{1, 0, 0}}, body); hit {
		t.Fatal("the least recently used tile was kept beyond the budget")
	}
	if c.bytes() > c.budget {
		t.Fatalf("%d bytes held, budget %d", c.bytes(), c.budget)
	}
	failing := func() ([]byte, error) { return nil, errors.New("boom") }
	if _, _, err := c.get(ctx, cacheKey{3, Tile{}}, failing); err == nil {
		t.Fatal("no error")
	}
	if _, hit, err := c.get(ctx, cacheKey{3, Tile{}}, body); hit || err != nil {
		t.Fatalf("a failure was cached: %v %v", hit, err)
	}
	// The gzip form is made once and holds the body.
	e, _, _ := c.get(ctx, cacheKey{3, Tile{}}, body)
	if g := e.gzipped(); len(g) == 0 || &g[0] != &e.gzipped()[0] {
		t.Fatal("gzip form")
	}
}
