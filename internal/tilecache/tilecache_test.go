package tilecache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// key names a test entry.
type key struct {
	version int
	tile    string
}

// The cache makes a tile once for concurrent callers, keeps to its
// budget (least recently used out first) and never keeps a failure.
func TestCache(t *testing.T) {
	c := New[key](3 * (2*1000 + 128))
	ctx := context.Background()
	var builds atomic.Int32
	body := func() ([]byte, error) { builds.Add(1); return make([]byte, 1000), nil }
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if e, _, err := c.Get(ctx, key{1, "1,0,0"}, body); err != nil || len(e.Body()) != 1000 {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Fatalf("%d builds for one tile", builds.Load())
	}
	for i := range 3 {
		c.Get(ctx, key{2, "1," + string(rune(48+i))}, body)
	}
	if _, hit, _ := c.Get(ctx, key{1, "1,0,0"}, body); hit {
		t.Fatal("the least recently used tile was kept beyond the budget")
	}
	if c.Bytes() > c.budget {
		t.Fatalf("%d bytes held, budget %d", c.Bytes(), c.budget)
	}
	failing := func() ([]byte, error) { return nil, errors.New("boom") }
	if _, _, err := c.Get(ctx, key{3, ""}, failing); err == nil {
		t.Fatal("no error")
	}
	if _, hit, err := c.Get(ctx, key{3, ""}, body); hit || err != nil {
		t.Fatalf("a failure was cached: %v %v", hit, err)
	}
	// The gzip form is made once and holds the body.
	e, _, _ := c.Get(ctx, key{3, ""}, body)
	if g := e.Gzipped(); len(g) == 0 || &g[0] != &e.Gzipped()[0] {
		t.Fatal("gzip form")
	}
}
