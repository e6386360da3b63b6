package featurerows

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// EncodeAttrs is m as the Writer stores it: a JSON object, its keys sorted.
// Of a row read back (Read, RowsByID) it is the row's stored text in the
// Writer's form, whichever store holds it.
func EncodeAttrs(m map[string]any) ([]byte, error) {
	if m == nil {
		return nil, nil
	}
	return appendAttrs(nil, m)
}

// appendAttrs appends m as a JSON object. The value types ingest produces
// (string, int64, float64, bool, time.Time, nil) and nested maps and slices
// of them are encoded here without reflection; anything else goes through
// encoding/json. Keys are sorted; NaN and infinities become null.
func appendAttrs(b []byte, m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, v), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case float64:
		return appendFloat(b, v), nil
	case float32:
		return appendFloat(b, float64(v)), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case time.Time:
		b = append(b, '"')
		b = v.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"'), nil
	case map[string]any:
		return appendAttrs(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	default:
		j, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return append(b, j...), nil
	}
}

// appendFloat formats like encoding/json, with null for NaN and infinities
// (which JSON cannot represent).
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, f, format, -1, 64)
}

// appendString appends s as a JSON string. Control characters are escaped;
// invalid UTF-8 becomes U+FFFD; NUL, which PostgreSQL's jsonb refuses, is
// dropped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case 0:
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hex = "0123456789abcdef"

// decodeAttrs parses a stored JSON object. Integral numbers that fit come
// back as int64, other numbers as float64; times come back as RFC 3339
// strings.
func decodeAttrs(data []byte) (map[string]any, error) {
	if data == nil {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	for k, v := range m {
		m[k] = numbers(v)
	}
	return m, nil
}

func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}
