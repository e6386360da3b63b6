package wfsserver

import (
	"strconv"
	"sync"

	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// maxCursors bounds the remembered page ends; beyond it they are all
// dropped (they are cheap to find again).
const maxCursors = 10000

// cursorCache remembers where pages ended: for a published version, a
// query (its filter) and a start index, the keyset position of the last
// feature before it. A client paging with STARTINDEX through a layer
// then reads each page by keyset, not by skipping rows again.
type cursorCache struct {
	mu sync.Mutex
	m  map[cursorKey]of.Cursor
}

type cursorKey struct {
	version int
	query   string
	start   int
}

func newCursorCache() *cursorCache { return &cursorCache{m: map[cursorKey]of.Cursor{}} }

func (c *cursorCache) get(k cursorKey) (of.Cursor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.m[k]
	return cur, ok
}

func (c *cursorCache) put(k cursorKey, cur of.Cursor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCursors {
		c.m = map[cursorKey]of.Cursor{}
	}
	c.m[k] = cur
}

func itoa(n int) string { return strconv.Itoa(n) }
