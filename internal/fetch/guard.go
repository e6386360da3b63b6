// Package fetch downloads remote sources safely: only http, https (and the
// schemes the caller allows), never to private, loopback, link-local or
// otherwise internal addresses unless the operator allows them, checked at
// connect time so DNS answers cannot be swapped after validation, with
// size and time limits.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/geopub/geopub/internal/apperr"
)

// ErrForbiddenAddress reports a URL whose host is, or resolves to, an
// address the guard refuses.
var ErrForbiddenAddress = errors.New("fetch: address not allowed")

// Guard decides which addresses remote fetches may reach.
type Guard struct {
	// Allow lists prefixes that are reachable even though they are
	// private or loopback (an operator's allow-list; tests allow
	// 127.0.0.1/32).
	Allow []netip.Prefix
	// Resolver looks up host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

// ParseAllowList reads a comma-separated list of addresses and prefixes,
// such as "127.0.0.1, 10.1.0.0/16".
func ParseAllowList(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("allow-list entry %q: %w", f, err)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("allow-list entry %q: %w", f, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Allowed reports whether a may be reached.
func (g *Guard) Allowed(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range g.Allow {
		if p.Contains(a) {
			return true
		}
	}
	return public(a)
}

// public reports whether a is a globally routable unicast address.
func public(a netip.Addr) bool {
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// reserved are ranges that are not private by net/netip's definition but
// must not be reached either.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // this network
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("169.254.0.0/16"), // link-local (cloud metadata)
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
	// IPv6 forms that carry an IPv4 address, which a stack or gateway
	// may reach on the address's behalf: refused whatever it embeds
	// (IPv4-mapped addresses are unmapped and judged as IPv4 first).
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated)
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"),  // NAT64, local use
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("2001::/32"),       // Teredo
}

// CheckHost resolves host and fails with ErrForbiddenAddress when any of
// its addresses is refused.
func (g *Guard) CheckHost(ctx context.Context, host string) error {
	addrs, err := g.lookup(ctx, host)
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if !g.Allowed(a) {
			return fmt.Errorf("%w: %s resolves to %s, a private or internal address", ErrForbiddenAddress, host, a)
		}
	}
	return nil
}

func (g *Guard) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a}, nil
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("fetch: cannot resolve %s: %w", host, err)
	}
	return addrs, nil
}

// CheckURL validates a remote URL given as field: an allowed scheme, a
// host, no credentials, and (when resolve is set) a host the guard allows.
// Failures are Invalid errors naming field.
func (g *Guard) CheckURL(ctx context.Context, field, raw string, schemes []string, resolve bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return nil, apperr.Field(field, "Enter a valid URL, such as https://example.com/data.zip.")
	}
	ok := false
	for _, s := range schemes {
		ok = ok || strings.EqualFold(u.Scheme, s)
	}
	if !ok {
		return nil, apperr.Field(field, fmt.Sprintf("Use a URL with one of these schemes: %s.", strings.Join(schemes, ", ")))
	}
	if u.User != nil {
		return nil, apperr.Field(field, "The URL must not contain credentials: give them as options.username and options.password.")
	}
	if resolve {
		if err := g.CheckHost(ctx, u.Hostname()); err != nil {
			if errors.Is(err, ErrForbiddenAddress) {
				return nil, apperr.Field(field, "The URL's host is a private or internal address, which this server may not reach.")
			}
			return nil, apperr.Field(field, "Invalid URL: can't resolve host.")
		}
	}
	return u, nil
}

// Dialer is a dialer whose connections reach only addresses the guard
// allows. Control runs for the address actually dialled, after DNS, so the
// guard sees what the connection reaches: every remote read (HTTP clients,
// database and file-share connections) dials through it. Its errors name
// no address (see DialError).
func (g *Guard) Dialer() *Dialer {
	return &Dialer{d: net.Dialer{
		Timeout: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if !g.Allowed(ap.Addr()) {
				return ErrForbiddenAddress
			}
			return nil
		},
	}}
}
