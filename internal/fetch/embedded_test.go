package fetch_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/geopub/geopub/internal/fetch"
)

// Issue 24.8: IPv6 forms that embed an IPv4 address are refused, even
// with the IPv4 address allow-listed; public IPv6 stays reachable.
func TestAllowedEmbeddedIPv4(t *testing.T) {
	allow, _ := fetch.ParseAllowList("127.0.0.1")
	for _, g := range []*fetch.Guard{{}, {Allow: allow}} {
		for addr, want := range map[string]bool{
			"::127.0.0.1":        false, // IPv4-compatible (::/96)
			"::10.0.0.1":         false,
			"::8.8.8.8":          false,
			"::ffff:169.254.1.1": false, // IPv4-mapped
			"::ffff:0:127.0.0.1": false, // IPv4-translated (SIIT)
			"64:ff9b::7f00:1":    false, // NAT64
			"64:ff9b::a00:1":     false,
			"64:ff9b:1::a00:1":   false, // local-use NAT64
			"2002:7f00:1::1":     false, // 6to4 of 127.0.0.1
			"2002:a00:1::1":      false, // 6to4 of 10.0.0.1
			"2001:0:4136:e378::": false, // Teredo
			"2606:4700::1111":    true,
		} {
			if got := g.Allowed(netip.MustParseAddr(addr)); got != want {
				t.Errorf("allow %v: Allowed(%s) = %v, want %v", g.Allow, addr, got, want)
			}
		}
	}
	if !(&fetch.Guard{Allow: allow}).Allowed(netip.MustParseAddr("::ffff:127.0.0.1")) {
		t.Error("an allow-listed IPv4 address refused in its mapped form")
	}
	if _, err := (&fetch.Guard{}).CheckURL(context.Background(), "url_remote", "http://[::127.0.0.1]:8080/a.zip",
		[]string{"http"}, true); err == nil {
		t.Error("CheckURL accepted [::127.0.0.1]")
	}
}

// Issue 24.8: a failed dial says why (refused, not allowed) and names
// neither the address dialled nor its port; the reason still answers
// errors.Is.
func TestDialErrorsNameNoAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	ln.Close()
	allow, _ := fetch.ParseAllowList("127.0.0.1")
	ctx := context.Background()

	_, err = (&fetch.Guard{Allow: allow}).Dialer().DialContext(ctx, "tcp", addr)
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "refused") ||
		strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), port) {
		t.Errorf("refused dial: %v", err)
	}
	_, err = (&fetch.Guard{}).Dialer().DialContext(ctx, "tcp", "[::127.0.0.1]:"+port)
	if !errors.Is(err, fetch.ErrForbiddenAddress) || strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), port) {
		t.Errorf("forbidden dial: %v", err)
	}

	// Downloads say so too, by host name: localhost resolves to the
	// address dialled.
	c := &fetch.Client{Guard: &fetch.Guard{Allow: allow}}
	u, _ := url.Parse("http://localhost:" + port + "/a.zip?token=t0ken")
	_, err = c.Download(ctx, u, fetch.Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "127.0.0.1") ||
		strings.Contains(err.Error(), "::1") || strings.Contains(err.Error(), "t0ken") {
		t.Errorf("refused download: %v", err)
	}
}
