package auth

import (
	"context"
	"net"
	"net/http"
	"net/netip"
)

// ClientAddr returns the IP address of the client behind r: the one the
// middleware determined, else the host of r.RemoteAddr. Proxy headers are
// never read here: internal/forwarded rewrites RemoteAddr for requests
// from the operator's trusted proxies before any handler runs.
func ClientAddr(r *http.Request) string {
	if a := ClientAddrFrom(r.Context()); a != "" {
		return a
	}
	return remoteHost(r.RemoteAddr)
}

// ClientAddrFrom returns the client address the middleware stored in ctx,
// or "" outside a request; GraphQL resolvers use it for throttling.
func ClientAddrFrom(ctx context.Context) string {
	if f := requestFactsFrom(ctx); f != nil {
		return f.addr
	}
	return ""
}

// clientAddr determines the client address of r: its peer's.
func (s *Service) clientAddr(r *http.Request) string { return remoteHost(r.RemoteAddr) }

// remoteHost strips the port from a RemoteAddr and canonicalises the IP.
func remoteHost(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Is4() {
			return host // ParseAddr takes dotted quads in canonical form only
		}
		return a.Unmap().WithZone("").String()
	}
	return host
}
