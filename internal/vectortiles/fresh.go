package vectortiles

import (
	"sync"
	"time"
)

// fresh remembers values for a short time (the service's freshness
// window), so a busy tile client does not read its layer and access again
// for every tile, while publishes and permission changes still arrive
// within the window. It forgets everything when it grows past its cap.
type fresh[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]freshValue[V]
}

type freshValue[V any] struct {
	v       V
	expires time.Time
}

const freshCap = 10000

func (f *fresh[K, V]) get(k K, now time.Time) (V, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.m[k]
	if !ok || now.After(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (f *fresh[K, V]) put(k K, v V, expires time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil || len(f.m) >= freshCap {
		f.m = map[K]freshValue[V]{}
	}
	f.m[k] = freshValue[V]{v: v, expires: expires}
}
