package oauthserver

import (
	"net"
	"net/url"
	"strings"
)

// checkRedirectURI is the rule for a redirect URI a client registers
// (RFC 6749 §3.1.2, RFC 8252 §7): an absolute URI without a fragment;
// https, plain http on a loopback address only, or a private-use scheme
// in reverse domain form (com.example.app:/callback). It returns a
// reason when the URI is refused.
func checkRedirectURI(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return "must be an absolute URI"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "must not have a fragment"
	case len(raw) > 2000:
		return "is longer than 2000 characters"
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return "needs a host"
		}
	case "http":
		if !isLoopback(u) {
			return "may use http only on a loopback address (127.0.0.1 or [::1]); use https"
		}
	default:
		if !strings.Contains(u.Scheme, ".") {
			return "needs https, http on loopback, or a private-use scheme in reverse domain form"
		}
	}
	return ""
}

// isLoopback reports whether u is an http URI on a loopback IP literal
// or localhost (RFC 8252 §7.3, §8.3).
func isLoopback(u *url.URL) bool {
	if u.Scheme != "http" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches reports whether the redirect_uri of a request is one of
// registered: an exact match, or, for a registered loopback URI, the
// same URI on any port (RFC 8252 §7.3).
func redirectMatches(registered []string, requested string) bool {
	for _, r := range registered {
		if r == requested {
			return true
		}
	}
	req, err := url.Parse(requested)
	if err != nil || !isLoopback(req) || req.Fragment != "" || req.User != nil {
		return false
	}
	for _, r := range registered {
		reg, err := url.Parse(r)
		if err != nil || !isLoopback(reg) {
			continue
		}
		if reg.Hostname() == req.Hostname() && reg.EscapedPath() == req.EscapedPath() &&
			reg.RawQuery == req.RawQuery && reg.User == nil {
			return true
		}
	}
	return false
}
