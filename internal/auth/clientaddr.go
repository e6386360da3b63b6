package auth

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

type addrKey struct{}

// ClientAddr returns the IP address of the client behind r: the one the
// middleware determined (which honours Config.TrustProxy), else the host of
// r.RemoteAddr. X-Forwarded-For is never read here directly.
func ClientAddr(r *http.Request) string {
	if a := ClientAddrFrom(r.Context()); a != "" {
		return a
	}
	return remoteHost(r.RemoteAddr)
}

// ClientAddrFrom returns the client address the middleware stored in ctx,
// or "" outside a request; GraphQL resolvers use it for throttling.
func ClientAddrFrom(ctx context.Context) string {
	a, _ := ctx.Value(addrKey{}).(string)
	return a
}

// clientAddr determines the client address of r: with TrustProxy, the last
// X-Forwarded-For entry (the one the proxy appended; earlier entries are
// whatever the client sent), else the connection's peer address.
func (s *Service) clientAddr(r *http.Request) string {
	if s.cfg.TrustProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			if a, err := netip.ParseAddr(strings.TrimSpace(parts[len(parts)-1])); err == nil {
				return a.Unmap().WithZone("").String()
			}
		}
	}
	return remoteHost(r.RemoteAddr)
}

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
