package auth

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/freshcache"
)

// keyCache remembers the tokens of recently used API keys for the
// point-query middleware, where one key may ask thousands of times a
// second: a cached key costs no database round trip. Entries live for the
// configured time or until freshcache.Invalidate, which every process
// sharing the database calls when a token, user or session changes.
type keyCache struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[[sha256.Size]byte]keyEntry // by SHA-256 of the key
}

type keyEntry struct {
	// tok, its user and scopes are shared by concurrent requests:
	// read-only.
	tok    *ent.Token
	scopes Scopes
	// header is the OAuth-Scopes value of the token's scopes.
	header []string // the OAuth-Scopes header value, shared
	loaded time.Time
	// epoch is freshcache's invalidation count when tok was read: a
	// change to any token, user or session anywhere forgets the entry.
	epoch uint64
}

// maxCachedKeys bounds the cache; beyond it, it starts again empty.
const maxCachedKeys = 10000

func (c *keyCache) get(sum [sha256.Size]byte, now time.Time) (keyEntry, bool) {
	if c.ttl <= 0 {
		return keyEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[sum]
	if !ok || now.Sub(e.loaded) >= c.ttl || e.epoch != freshcache.Epoch() {
		return keyEntry{}, false
	}
	return e, true
}

// entryOf prepares what requests with tok share.
func entryOf(tok *ent.Token, now time.Time) keyEntry {
	sc := ParseScopes(tok.Scope)
	return keyEntry{tok: tok, scopes: sc, header: []string{sc.String()}, loaded: now, epoch: freshcache.Epoch()}
}

func (c *keyCache) put(sum [sha256.Size]byte, e keyEntry) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedKeys {
		c.m = map[[sha256.Size]byte]keyEntry{}
	}
	c.m[sum] = e
}

// clear forgets every key, when a token changes.
func (c *keyCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// ForgetKeys drops every cached key check, for code that deletes or
// changes tokens outside this package (revoked OAuth grants): the next
// request with any key reads its token again.
func (s *Service) ForgetKeys() { s.keys.clear() }
