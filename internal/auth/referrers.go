package auth

import (
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/apperr"
)

// Referrer rules restrict where a token may be used from, judged by the
// Referer header. The semantics, in one place:
//
//   - A rule is a host name ("maps.example.com"), an IP address ("192.0.2.7",
//     "[2001:db8::1]") or a leading-wildcard pattern ("*.example.com"),
//     optionally followed by ":port". Rules are stored lower-cased.
//   - "*.example.com" matches sub-domains of example.com at any depth
//     ("a.example.com", "a.b.example.com") but not example.com itself; add
//     both rules to allow both. This is the usual reading of a wildcard
//     label and keeps a pattern from silently covering the apex site.
//   - A rule without a port matches the host on any port; a rule with a port
//     matches only that port, where a Referer without an explicit port uses
//     its scheme's default (80 for http, 443 for https).
//   - Referrers on 127.0.0.1, localhost and ::1 are always accepted, as the
//     specification requires, so tokens work during local development.
//   - A token with rules refuses requests that carry no Referer at all (or
//     an unparsable one): otherwise the rules would be bypassed simply by
//     omitting the header. Clients that cannot send a Referer need a token
//     without rules. Referrer checks are advisory, not a security control.

// maxReferrerRules bounds the number of rules on one token.
const maxReferrerRules = 100

// ValidateReferrers checks and normalises referrer rules as supplied by a
// client: it lower-cases them, drops duplicates, and refuses empty rules,
// schemes, paths, and wildcards anywhere but a leading "*." label.
func ValidateReferrers(rules []string) ([]string, error) {
	if len(rules) > maxReferrerRules {
		return nil, apperr.Field("referrers", "At most "+strconv.Itoa(maxReferrerRules)+" referrer rules are allowed.")
	}
	out := make([]string, 0, len(rules))
	seen := map[string]bool{}
	for _, raw := range rules {
		r := strings.ToLower(strings.TrimSpace(raw))
		norm, msg := normaliseRule(r)
		if msg != "" {
			return nil, apperr.Field("referrers", quote(raw)+": "+msg)
		}
		if !seen[norm] {
			seen[norm] = true
			out = append(out, norm)
		}
	}
	return out, nil
}

// normaliseRule returns the canonical form of a lower-cased rule, or a
// message saying what is wrong with it.
func normaliseRule(r string) (string, string) {
	switch {
	case r == "":
		return "", "A referrer rule cannot be empty."
	case strings.Contains(r, "://"):
		return "", "Give a host name without a scheme, e.g. example.com."
	case strings.ContainsAny(r, "/?#@"):
		return "", "Give a host name without a path, e.g. example.com."
	}
	if a, err := netip.ParseAddr(r); err == nil && a.Is6() { // bare IPv6
		return "[" + a.String() + "]", ""
	}
	host, port, hasPort := r, "", false
	if rest, ok := strings.CutPrefix(r, "["); ok { // [IPv6] or [IPv6]:port
		v6, after, closed := strings.Cut(rest, "]")
		a, err := netip.ParseAddr(v6)
		if !closed || err != nil || !a.Is6() {
			return "", "This is not a valid IPv6 address."
		}
		if after != "" {
			if port, hasPort = strings.CutPrefix(after, ":"); !hasPort {
				return "", "Give a host name, optionally followed by :port."
			}
		}
		host = "[" + a.String() + "]"
	} else if i := strings.LastIndexByte(r, ':'); i >= 0 {
		host, port, hasPort = r[:i], r[i+1:], true
	}
	if hasPort {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 {
			return "", "The port must be a number from 1 to 65535."
		}
		port = ":" + strconv.Itoa(p)
	}
	if strings.HasPrefix(host, "[") {
		return host + port, ""
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		return a.String() + port, ""
	}
	name := strings.TrimPrefix(host, "*.")
	if strings.Contains(name, "*") {
		return "", "A wildcard is only allowed as a leading label, e.g. *.example.com."
	}
	if !validHostName(name) {
		return "", "This is not a valid host name."
	}
	return host + port, ""
}

// validHostName reports whether s is a DNS name of letters, digits and
// hyphens, in labels of 1 to 63 characters.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// alwaysAllowedReferrers are the loopback hosts accepted whatever the rules.
var alwaysAllowedReferrers = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}

// ReferrerAllowed reports whether a request whose Referer header is referer
// may use a token with the given (validated) rules. See the semantics above.
func ReferrerAllowed(rules []string, referer string) bool {
	if len(rules) == 0 {
		return true
	}
	host, port, ok := refererHostPort(referer)
	if !ok {
		return false
	}
	if alwaysAllowedReferrers[host] {
		return true
	}
	for _, rule := range rules {
		if ruleMatches(rule, host, port) {
			return true
		}
	}
	return false
}

// refererHostPort extracts the lower-cased host (IPv6 without brackets) and
// the effective port from a Referer header value.
func refererHostPort(referer string) (host, port string, ok bool) {
	referer = strings.TrimSpace(referer)
	if referer == "" {
		return "", "", false
	}
	u, err := url.Parse(referer)
	if err != nil || u.Host == "" {
		// Tolerate a bare "host[:port][/path]" from non-browser clients.
		if u, err = url.Parse("//" + referer); err != nil || u.Host == "" {
			return "", "", false
		}
	}
	host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.Unmap().String()
	}
	port = u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return host, port, host != ""
}

// ruleMatches reports whether one normalised rule admits host and port.
func ruleMatches(rule, host, port string) bool {
	rhost, rport := rule, ""
	if h, p, err := net.SplitHostPort(rule); err == nil {
		rhost, rport = h, p
	}
	rhost = strings.TrimSuffix(strings.TrimPrefix(rhost, "["), "]")
	if rport != "" && rport != port {
		return false
	}
	if suffix, ok := strings.CutPrefix(rhost, "*"); ok {
		return strings.HasSuffix(host, suffix) && len(host) > len(suffix)
	}
	return host == rhost
}
