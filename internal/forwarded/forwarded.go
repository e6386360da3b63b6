// Package forwarded reads the proxy headers of requests that reach the
// service through the operator's own proxies, and of no others.
//
// Behind a load balancer every connection comes from the balancer, so
// without this every client shares its address: one client's wrong
// passwords lock the owner out, and the per-address limits are shared by
// everyone (issue 24). The operator names their proxies
// (--trusted-proxies, CIDRs). For a request whose peer is one of them,
// the client's address is the nearest untrusted hop of Forwarded (RFC
// 7239) or X-Forwarded-For, read from the right, since each proxy appends
// the address it saw and a client can only invent entries on the left;
// and the scheme and host the client used come from Forwarded's proto and
// host or X-Forwarded-Proto and X-Forwarded-Host, for links when no base
// URL is configured. From any other peer these headers are ignored.
package forwarded

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the peers whose proxy headers are trusted.
type Proxies struct{ prefixes []netip.Prefix }

// Parse reads a comma-separated list of CIDRs or single addresses; an
// empty list trusts no one.
func Parse(list string) (Proxies, error) {
	var p Proxies
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return Proxies{}, fmt.Errorf("trusted proxy %q is neither an address nor a CIDR prefix", s)
			}
			s = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()).String()
		}
		pre, err := netip.ParsePrefix(s)
		if err != nil {
			return Proxies{}, fmt.Errorf("trusted proxy %q is neither an address nor a CIDR prefix", s)
		}
		if pre.Addr().Is4In6() {
			pre = netip.PrefixFrom(pre.Addr().Unmap(), max(pre.Bits()-96, 0))
		}
		p.prefixes = append(p.prefixes, pre.Masked())
	}
	return p, nil
}

// trusts reports whether a is one of the proxies.
func (p Proxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, pre := range p.prefixes {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

type schemeKey struct{}

// Middleware rewrites a trusted proxy's request as the client made it:
// RemoteAddr is the client's address, Host the host they asked for, and
// Origin reports their scheme.
func (p Proxies) Middleware(next http.Handler) http.Handler {
	if len(p.prefixes) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, port, err := net.SplitHostPort(r.RemoteAddr)
		peer, perr := netip.ParseAddr(host)
		if err != nil || perr != nil || !p.trusts(peer) {
			next.ServeHTTP(w, r)
			return
		}
		h := read(r.Header)
		r2 := r.Clone(r.Context())
		if client, ok := p.client(h.hops); ok {
			r2.RemoteAddr = net.JoinHostPort(client.String(), port)
		}
		if validHost(h.host) {
			r2.Host = h.host
		}
		if h.proto == "http" || h.proto == "https" {
			r2 = r2.WithContext(context.WithValue(r2.Context(), schemeKey{}, h.proto))
		}
		next.ServeHTTP(w, r2)
	})
}

// client is the nearest hop, from the right, that is not a proxy; when
// every hop is, the leftmost. A hop that is not an address ends the walk:
// what lies left of it cannot be trusted.
func (p Proxies) client(hops []string) (netip.Addr, bool) {
	var last netip.Addr
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break
		}
		last = a.Unmap()
		if !p.trusts(last) {
			return last, true
		}
	}
	return last, last.IsValid()
}

// Origin is scheme://host as the client reached the service: the trusted
// proxy's word for the scheme, else whether the connection is TLS.
func Origin(r *http.Request) string {
	scheme, _ := r.Context().Value(schemeKey{}).(string)
	if scheme == "" {
		scheme = "http"
		if r.TLS != nil {
			scheme = "https"
		}
	}
	return scheme + "://" + r.Host
}

// validHost accepts a host[:port] that is safe to put in a URL.
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]", c)) {
			return false
		}
	}
	return true
}
