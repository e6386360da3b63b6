package auth

import (
	"context"
	"strings"
	"unicode/utf8"
)

type userAgentKey struct{}

// maxUserAgent is how much of a User-Agent a session keeps, in bytes.
const maxUserAgent = 512

// WithUserAgent returns ctx carrying the request's User-Agent, cut to what
// a session keeps; the middleware sets it on every request.
func WithUserAgent(ctx context.Context, ua string) context.Context {
	return context.WithValue(ctx, userAgentKey{}, cutUserAgent(ua))
}

// UserAgentFrom returns the User-Agent the middleware stored in ctx, or ""
// outside a request.
func UserAgentFrom(ctx context.Context) string {
	ua, _ := ctx.Value(userAgentKey{}).(string)
	return ua
}

// cutUserAgent drops control characters and cuts ua to maxUserAgent bytes
// on a character boundary.
func cutUserAgent(ua string) string {
	ua = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, ua)
	for len(ua) > maxUserAgent {
		_, size := utf8.DecodeLastRuneInString(ua)
		ua = ua[:len(ua)-size]
	}
	return ua
}
