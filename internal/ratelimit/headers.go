package ratelimit

import (
	"net/http"
	"strconv"
	"time"
)

// The header fields of draft-ietf-httpapi-ratelimit-headers (draft 11),
// in canonical form so that they are set without canonicalising.
const (
	PolicyHeader = "Ratelimit-Policy"
	StateHeader  = "Ratelimit"
	// ExposeHeaders is what CORS answers list for scripts of other
	// origins to read them.
	ExposeHeaders = "RateLimit, RateLimit-Policy, Retry-After"
)

// policy is a class's Policy with its header values rendered once.
type policy struct {
	Policy
	name string
	// window is Window in seconds.
	window int64
	// header and anonHeader are the RateLimit-Policy values for
	// identified and anonymous callers; shared, never changed in place
	// (capacity equals length, so an append copies).
	header, anonHeader []string
	// detail is the message of a refusal.
	detail string
}

func newPolicy(c Class, p Policy) *policy {
	w := int64(p.Window / time.Second)
	pol := &policy{Policy: p, name: c.String(), window: w}
	pol.header = []string{policyValue(pol.name, p.Quota, w)}
	pol.anonHeader = pol.header
	if p.Anonymous > 0 {
		pol.anonHeader = []string{policyValue(pol.name, p.Anonymous, w)}
	}
	pol.detail = "Too many requests: the " + pol.name + " rate limit allows " + strconv.FormatInt(p.Quota, 10) +
		" requests per " + strconv.FormatInt(w, 10) + " seconds"
	if p.Anonymous > 0 {
		pol.detail += " (" + strconv.FormatInt(p.Anonymous, 10) + " without signing in)"
	}
	pol.detail += "; retry after the time Retry-After gives."
	return pol
}

// policyValue is one policy item: "name";q=quota;w=window.
func policyValue(name string, quota, window int64) string {
	b := make([]byte, 0, len(name)+32)
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, `";q=`...)
	b = strconv.AppendInt(b, quota, 10)
	b = append(b, ";w="...)
	b = strconv.AppendInt(b, window, 10)
	return string(b)
}

// setHeaders writes RateLimit-Policy and RateLimit for decision d of
// bucket k, and Retry-After when d refuses.
func (p *policy) setHeaders(h http.Header, k Key, d Decision) {
	if k.kind == byAddr {
		h[PolicyHeader] = p.anonHeader
	} else {
		h[PolicyHeader] = p.header
	}
	var buf [64]byte
	b := append(buf[:0], '"')
	b = append(b, p.name...)
	b = append(b, `";r=`...)
	b = strconv.AppendInt(b, d.Remaining, 10)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, d.Reset, 10)
	h[StateHeader] = []string{string(b)}
	if !d.Allowed {
		h["Retry-After"] = []string{strconv.FormatInt(d.Reset, 10)}
	}
}
