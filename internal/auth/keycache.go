package auth

import (
	"sync"
	"time"

	"github.com/geopub/geopub/ent"
)

// keyCache remembers the tokens of recently used API keys for the
// point-query middleware, where one key may ask thousands of times a
// second: a cached key costs no database round trip. Entries live for the
// configured time; this process forgets every entry when a token changes,
// so other processes see a deleted or changed token within that time.
type keyCache struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[string]keyEntry // by key hash
}

type keyEntry struct {
	// tok and its user are shared by concurrent requests: read-only.
	tok    *ent.Token
	loaded time.Time
}

// maxCachedKeys bounds the cache; beyond it, it starts again empty.
const maxCachedKeys = 10000

func (c *keyCache) get(hash string, now time.Time) (*ent.Token, bool) {
	if c.ttl <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[hash]
	if !ok || now.Sub(e.loaded) >= c.ttl {
		return nil, false
	}
	return e.tok, true
}

func (c *keyCache) put(hash string, tok *ent.Token, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedKeys {
		c.m = map[string]keyEntry{}
	}
	c.m[hash] = keyEntry{tok: tok, loaded: now}
}

// clear forgets every key, when a token changes.
func (c *keyCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}
