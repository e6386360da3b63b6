package textrules

import (
	"encoding/json"

	"github.com/geopub/geopub/internal/apperr"
)

// CheckJSON scans a raw JSON document for a string holding an unpaired
// UTF-16 surrogate escape (such as "\ud83d" without its low half). Go's
// decoder silently turns one into U+FFFD, so the text stored would not be
// the text sent; the front doors refuse it instead. The error names the
// member whose value (or name) holds it, or "body" at the top level.
// Anything that is not well-formed JSON is left to the decoder to report.
func CheckJSON(raw []byte) error {
	lastKey := ""
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		start := i
		end, lone := scanString(raw, i)
		if end < 0 {
			return nil // unterminated: the decoder reports it
		}
		i = end
		if lone {
			// A member name holding one is reported under the enclosing
			// member, if any.
			field := lastKey
			if field == "" {
				field = "body"
			}
			return apperr.Field(field, "Contains an unpaired UTF-16 surrogate escape: send valid Unicode text.")
		}
		if nextNonSpace(raw, end+1) == ':' {
			var k string
			if json.Unmarshal(raw[start:end+1], &k) == nil {
				lastKey = k
			}
		}
	}
	return nil
}

// scanString reads the string literal starting at raw[i] (a quote) and
// returns the index of its closing quote (-1 when there is none) and
// whether it holds an unpaired surrogate escape.
func scanString(raw []byte, i int) (end int, lone bool) {
	pendingHigh := false
	for j := i + 1; j < len(raw); j++ {
		c := raw[j]
		switch {
		case c == '"':
			return j, lone || pendingHigh
		case c == '\\' && j+1 < len(raw):
			if raw[j+1] != 'u' {
				lone = lone || pendingHigh
				pendingHigh = false
				j++
				continue
			}
			r, ok := hex4(raw, j+2)
			if !ok {
				j++
				continue
			}
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				lone = lone || pendingHigh
				pendingHigh = true
			case r >= 0xDC00 && r <= 0xDFFF:
				if !pendingHigh {
					lone = true
				}
				pendingHigh = false
			default:
				lone = lone || pendingHigh
				pendingHigh = false
			}
			j += 5
		default:
			lone = lone || pendingHigh
			pendingHigh = false
		}
	}
	return -1, false
}

func hex4(raw []byte, at int) (rune, bool) {
	if at+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[at : at+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func nextNonSpace(raw []byte, i int) byte {
	for ; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return raw[i]
	}
	return 0
}
