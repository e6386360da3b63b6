package ratelimit

import (
	"hash/maphash"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/geopub/geopub/internal/store"
)

// kind is what a bucket counts by.
type kind uint8

const (
	byToken kind = iota + 1
	byUser
	byAddr
)

// Key names one caller's bucket of one class.
type Key struct {
	class Class
	kind  kind
	id    int64
	addr  netip.Addr
}

// TokenKey, UserKey and AddrKey are the buckets of a token, a user's
// sessions and an anonymous client address.
func TokenKey(c Class, tokenID int) Key { return Key{class: c, kind: byToken, id: int64(tokenID)} }

// UserKey is the bucket of a user's session requests.
func UserKey(c Class, userID int) Key { return Key{class: c, kind: byUser, id: int64(userID)} }

// AddrKey is the bucket of an anonymous client address: IPv4 addresses
// one by one, IPv6 by their /64.
func AddrKey(c Class, a netip.Addr) Key {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		a = p.Addr()
	}
	return Key{class: c, kind: byAddr, addr: a}
}

// entry is a bucket's count in its current window.
type entry struct {
	window int64 // start, Unix seconds
	// shared is the total of every process as the last sync read it
	// (this process's synced counts included); pending is what this
	// process admitted since.
	shared, pending int64
	// refresh counts the syncs that still read shared back: set by each
	// request, so that a bucket in use stays fresh for a few syncs after
	// its last request, when the other processes' last counts arrive.
	refresh uint8
}

const numShards = 64

// refreshSyncs is how many syncs after its last request a bucket's total
// is still read back.
const refreshSyncs = 3

type shard struct {
	mu sync.Mutex
	m  map[Key]*entry
}

// Limiter counts requests by bucket and decides them by policy. A nil
// *Limiter limits nothing. Its methods are safe for concurrent use.
type Limiter struct {
	policies [numClasses]*policy
	shards   [numShards]shard
	seed     maphash.Seed
	st       *store.Store
	logger   *slog.Logger
	every    time.Duration
	now      func() time.Time

	syncMu     sync.Mutex
	lastPrune  time.Time
	stop, done chan struct{}
}

// New returns the limiter of cfg sharing its counts through st (nil keeps
// them in this process), or nil when cfg limits nothing.
func New(cfg Config, st *store.Store, logger *slog.Logger) *Limiter {
	if !cfg.Enabled() {
		return nil
	}
	if logger == nil {
		logger = slog.Default()
	}
	l := &Limiter{seed: maphash.MakeSeed(), st: st, logger: logger, every: cfg.SyncEvery, now: time.Now}
	if l.every == 0 {
		l.every = DefaultSyncEvery
	}
	for c, p := range cfg.Policies {
		if c > None && c < numClasses {
			l.policies[c] = newPolicy(c, p)
		}
	}
	for i := range l.shards {
		l.shards[i].m = map[Key]*entry{}
	}
	return l
}

// Limits reports whether class c has a policy.
func (l *Limiter) Limits(c Class) bool { return l != nil && c < numClasses && l.policies[c] != nil }

// Decision is the answer to one request.
type Decision struct {
	Allowed bool
	// Quota is the policy's quota for the caller, Remaining what is left
	// of it after this request, Reset the seconds until the window ends.
	Quota, Remaining, Reset int64
}

// Take counts one request of bucket k at now and decides it. A refused
// request is not counted. Classes without a policy are always allowed.
func (l *Limiter) Take(k Key, now time.Time) Decision {
	if !l.Limits(k.class) {
		return Decision{Allowed: true}
	}
	p := l.policies[k.class]
	quota := p.Quota
	if k.kind == byAddr && p.Anonymous > 0 {
		quota = p.Anonymous
	}
	unix := now.Unix()
	win := unix - unix%p.window
	d := Decision{Quota: quota, Reset: win + p.window - unix}
	sh := &l.shards[l.shardOf(k)]
	sh.mu.Lock()
	e := sh.m[k]
	if e == nil {
		e = &entry{window: win}
		sh.m[k] = e
	} else if e.window != win {
		*e = entry{window: win}
	}
	e.refresh = refreshSyncs
	used := e.shared + e.pending
	if used < quota {
		e.pending++
		d.Allowed = true
		d.Remaining = quota - used - 1
	}
	sh.mu.Unlock()
	return d
}

// shardOf is the shard holding k.
func (l *Limiter) shardOf(k Key) uint64 { return maphash.Comparable(l.seed, k) % numShards }
