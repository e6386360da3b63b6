// Package ratelimit limits how many requests one caller makes to a class
// of routes in a window of time, by the operator's policies.
//
// A policy gives a route class (API reads, API writes, search, exports,
// tiles, point queries, OGC services, GraphQL) a quota of requests per
// fixed window. The quota is counted per caller: per API token for token
// requests, per user for session requests, per client address for
// anonymous ones (the address internal/forwarded gives, IPv6 by /64, since
// one host holds a whole /64). Windows are aligned on multiples of their
// length since the Unix epoch, so every process agrees on them without
// talking.
//
// Every answer on a limited route carries the IETF headers of
// draft-ietf-httpapi-ratelimit-headers (RateLimit-Policy and RateLimit,
// structured fields); a request past the quota is answered 429 with
// Retry-After, in the door's own error format.
//
// Counts are kept in memory and shared through the database: every sync
// interval a process adds its new counts to the rate_limit_counters table
// in one batched upsert and reads back the totals, and decides each
// request on the last known total plus its own unsynced count. The
// processes sharing one database share the quota, within the slack
// docs/ratelimit.md works out; ended windows are deleted.
package ratelimit

import (
	"fmt"
	"strconv"
	"time"
)

// Class is a class of routes sharing one policy.
type Class uint8

// The route classes. None is a route that is never limited.
const (
	None Class = iota
	Reads
	Writes
	Search
	Exports
	Tiles
	Queries
	OGC
	GraphQL
	numClasses
)

// classNames are the names of the classes in configurations and headers.
var classNames = [numClasses]string{
	None: "", Reads: "reads", Writes: "writes", Search: "search", Exports: "exports",
	Tiles: "tiles", Queries: "queries", OGC: "ogc", GraphQL: "graphql",
}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "class" + strconv.Itoa(int(c))
}

// ClassNamed returns the class of a configuration name.
func ClassNamed(name string) (Class, bool) {
	for c := Reads; c < numClasses; c++ {
		if classNames[c] == name {
			return c, true
		}
	}
	return None, false
}

// Bounds of policies.
const (
	MaxQuota  = 1_000_000_000
	MinWindow = time.Second
	MaxWindow = 24 * time.Hour
)

// Policy is a quota of requests per window. Anonymous, when positive,
// replaces Quota for anonymous callers (counted by address).
type Policy struct {
	Quota     int64
	Window    time.Duration
	Anonymous int64
}

func (p Policy) check(c Class) error {
	switch {
	case p.Quota < 1 || p.Quota > MaxQuota:
		return fmt.Errorf("rate limit %s: quota must be a whole number from 1 to %d", c, MaxQuota)
	case p.Anonymous < 0 || p.Anonymous > MaxQuota:
		return fmt.Errorf("rate limit %s: anonymous quota must be a whole number from 1 to %d", c, MaxQuota)
	case p.Window < MinWindow || p.Window > MaxWindow || p.Window%time.Second != 0:
		return fmt.Errorf("rate limit %s: window must be whole seconds from %s to %s", c, MinWindow, MaxWindow)
	}
	return nil
}
