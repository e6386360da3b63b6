package freshcache

import (
	"testing"
	"time"
)

func TestCacheExpiresAndStartsAgainWhenFull(t *testing.T) {
	var c Cache[int, string]
	now := time.Now()
	if _, ok := c.Get(1, now); ok {
		t.Fatal("an empty cache had a value")
	}
	c.Put(1, "one", now.Add(time.Second))
	if v, ok := c.Get(1, now); !ok || v != "one" {
		t.Fatalf("Get = %q %v", v, ok)
	}
	if _, ok := c.Get(1, now.Add(time.Second)); ok {
		t.Fatal("a value was fresh at its expiry")
	}
	for i := range MaxEntries {
		c.Put(i+2, "x", now.Add(time.Hour))
	}
	if _, ok := c.Get(2, now); ok {
		t.Fatal("a full cache kept its entries")
	}
	if _, ok := c.Get(MaxEntries+1, now); !ok {
		t.Fatal("the entry put into the emptied cache is missing")
	}
}

// Issue 24, point 24: an invalidation forgets every entry at once, and a
// value computed before it is not kept after it.
func TestInvalidateForgetsEverything(t *testing.T) {
	var c Cache[int, string]
	now := time.Now()
	c.Put(1, "one", now.Add(time.Hour))
	before := Epoch()
	Invalidate()
	if _, ok := c.Get(1, now); ok {
		t.Fatal("an entry outlived Invalidate")
	}
	c.PutAt(2, "computed before", now.Add(time.Hour), before)
	if _, ok := c.Get(2, now); ok {
		t.Fatal("a value computed before an invalidation was kept")
	}
	c.Put(3, "after", now.Add(time.Hour))
	if v, ok := c.Get(3, now); !ok || v != "after" {
		t.Fatalf("Get = %q %v", v, ok)
	}
}
