package sso

import (
	"net/url"
	"strings"
)

// maxNext bounds the length of a next path.
const maxNext = 2048

// SafeNext returns next when it is a path on this site ("/..." with no
// scheme, host or backslash, no control characters, at most 2048 bytes),
// and "/" otherwise: a sign-in never redirects off the site.
func SafeNext(next string) string {
	if next == "" || len(next) > maxNext || !strings.HasPrefix(next, "/") ||
		strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\") {
		return "/"
	}
	for _, r := range next {
		if r < 0x20 || r == 0x7f {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return next
}
