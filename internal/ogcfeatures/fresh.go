package ogcfeatures

import (
	"sync"
	"time"
)

// maxRemembered bounds the decisions kept; beyond it they are dropped
// all at once (they are cheap to make again).
const maxRemembered = 10000

// decisions remembers, for a freshness window, what describe answered for
// a caller and a layer: the collection, or nil when the caller may not
// read it. Publishes and permission changes reach the API within the
// window, as they reach the point queries.
type decisions struct {
	fresh time.Duration
	mu    sync.Mutex
	m     map[decisionKey]decision
}

type decisionKey struct {
	user, layer int
	service     string
}

type decision struct {
	c       *Collection
	expires time.Time
}

// get returns a copy of a remembered collection (callers fill in its
// extents), and whether there was a fresh decision.
func (d *decisions) get(k decisionKey, now time.Time) (*Collection, bool) {
	if d.fresh <= 0 {
		return nil, false
	}
	d.mu.Lock()
	e, ok := d.m[k]
	d.mu.Unlock()
	if !ok || now.After(e.expires) {
		return nil, false
	}
	if e.c == nil {
		return nil, true
	}
	c := *e.c
	return &c, true
}

func (d *decisions) put(k decisionKey, c *Collection, now time.Time) {
	if d.fresh <= 0 {
		return
	}
	if c != nil {
		cp := *c
		c = &cp
	}
	d.mu.Lock()
	if d.m == nil || len(d.m) >= maxRemembered {
		d.m = map[decisionKey]decision{}
	}
	d.m[k] = decision{c: c, expires: now.Add(d.fresh)}
	d.mu.Unlock()
}
