package exportfile

import (
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The attributes of a stored row are one flat JSON object (features'
// appendAttrs writes it). scanObject reads it without building maps: it
// finds each key's value and keeps the raw token for the fields asked
// for; values are converted to the field's type only when encoded.

type jsonKind uint8

const (
	jNull jsonKind = iota
	jFalse
	jTrue
	jNumber
	jString // raw holds the content between the quotes
	jOther  // object or array: raw holds the JSON text
)

type jsonValue struct {
	kind    jsonKind
	escaped bool // a jString with backslash escapes
	raw     []byte
}

// scanObject fills vals[index[key]] for each key of the object in data.
// It stops quietly at malformed input (the fields left are null).
func scanObject(data []byte, index map[string]int, vals []jsonValue) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] == '}' {
			return
		}
		if data[i] == ',' {
			i++
			continue
		}
		if data[i] != '"' {
			return
		}
		keyStart := i + 1
		end, escaped, ok := stringEnd(data, keyStart)
		if !ok {
			return
		}
		var key string
		if escaped {
			key = string(unescape(data[keyStart:end]))
		}
		i = skipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			return
		}
		i = skipSpace(data, i+1)
		var v jsonValue
		if v, i, ok = scanValue(data, i); !ok {
			return
		}
		var pos int
		var found bool
		if escaped {
			pos, found = index[key]
		} else {
			pos, found = index[string(data[keyStart:end])]
		}
		if found {
			vals[pos] = v
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd finds the closing quote of a string whose content starts at i.
func stringEnd(data []byte, i int) (end int, escaped, ok bool) {
	for i < len(data) {
		switch data[i] {
		case '"':
			return i, escaped, true
		case '\\':
			escaped = true
			i += 2
			continue
		}
		i++
	}
	return 0, false, false
}

// scanValue reads the value at i and returns it and the index after it.
func scanValue(data []byte, i int) (jsonValue, int, bool) {
	if i >= len(data) {
		return jsonValue{}, i, false
	}
	switch c := data[i]; {
	case c == '"':
		end, escaped, ok := stringEnd(data, i+1)
		if !ok {
			return jsonValue{}, i, false
		}
		return jsonValue{kind: jString, escaped: escaped, raw: data[i+1 : end]}, end + 1, true
	case c == 'n':
		return jsonValue{}, i + 4, i+4 <= len(data)
	case c == 't':
		return jsonValue{kind: jTrue}, i + 4, i+4 <= len(data)
	case c == 'f':
		return jsonValue{kind: jFalse}, i + 5, i+5 <= len(data)
	case c == '{' || c == '[':
		end, ok := nestedEnd(data, i)
		return jsonValue{kind: jOther, raw: data[i:end]}, end, ok
	default:
		j := i
		for j < len(data) && (data[j] == '-' || data[j] == '+' || data[j] == '.' || data[j] == 'e' || data[j] == 'E' || (data[j] >= '0' && data[j] <= '9')) {
			j++
		}
		return jsonValue{kind: jNumber, raw: data[i:j]}, j, j > i
	}
}

// nestedEnd finds the end of the object or array at i.
func nestedEnd(data []byte, i int) (int, bool) {
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '"':
			end, _, ok := stringEnd(data, i+1)
			if !ok {
				return i, false
			}
			i = end
		}
		i++
	}
	return i, false
}

// text is the value as a string field holds it: a string's content,
// numbers and nested values as their JSON text, booleans as true/false.
func (v jsonValue) text() []byte {
	switch v.kind {
	case jTrue:
		return []byte("true")
	case jFalse:
		return []byte("false")
	case jString:
		if v.escaped {
			return unescape(v.raw)
		}
	}
	return v.raw
}

func (v jsonValue) int() (int64, bool) {
	switch v.kind {
	case jTrue:
		return 1, true
	case jFalse:
		return 0, true
	case jNumber, jString:
		s := string(v.text())
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f >= -9.2e18 && f <= 9.2e18 {
			return int64(f), true
		}
	}
	return 0, false
}

func (v jsonValue) float() (float64, bool) {
	switch v.kind {
	case jTrue:
		return 1, true
	case jFalse:
		return 0, true
	case jNumber, jString:
		f, err := strconv.ParseFloat(string(v.text()), 64)
		return f, err == nil
	}
	return 0, false
}

// ogrTime is a date or date-time as OGR takes it.
type ogrTime struct {
	year                     int
	month, day, hour, minute uint8
	tz                       uint8
	second                   float64
}

// dateTime parses an RFC 3339 value (stored dates and times are
// RFC 3339, features.appendAttrs) or a plain date. dateOnly keeps the
// calendar date and no time zone.
func (v jsonValue) dateTime(dateOnly bool) (ogrTime, bool) {
	if v.kind != jString {
		return ogrTime{}, false
	}
	s := string(v.text())
	if len(s) == 10 {
		if t, err := time.Parse(time.DateOnly, s); err == nil {
			return ogrTime{year: t.Year(), month: uint8(t.Month()), day: uint8(t.Day())}, true
		}
		return ogrTime{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ogrTime{}, false
	}
	o := ogrTime{year: t.Year(), month: uint8(t.Month()), day: uint8(t.Day())}
	if dateOnly {
		return o, true
	}
	o.hour, o.minute = uint8(t.Hour()), uint8(t.Minute())
	o.second = float64(t.Second()) + float64(t.Nanosecond())/1e9
	_, off := t.Zone()
	o.tz = uint8(100 + off/(15*60))
	return o, true
}

// unescape decodes the backslash escapes of a JSON string's content;
// NUL characters are dropped (the C writer takes NUL-terminated text).
func unescape(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			out = append(out, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			r, n := hexRune(s[i+1:])
			i += n
			if utf16.IsSurrogate(r) && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				r2, n2 := hexRune(s[i+3:])
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 2 + n2
				}
			}
			if r != 0 {
				out = utf8.AppendRune(out, r)
			}
		default: // " \ /
			out = append(out, s[i])
		}
	}
	return out
}

// hexRune reads up to four hex digits.
func hexRune(s []byte) (rune, int) {
	var r rune
	n := 0
	for n < 4 && n < len(s) {
		c := s[n]
		switch {
		case c >= '0' && c <= '9':
			r = r*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			return utf8.RuneError, n
		}
		n++
	}
	return r, n
}
