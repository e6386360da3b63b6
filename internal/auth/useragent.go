package auth

import (
	"strings"
	"unicode/utf8"
)

// maxUserAgent is how much of a User-Agent a session keeps, in bytes.
const maxUserAgent = 512

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
