package vectortiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/paulmach/orb/geojson"
)

// attrPairs decodes stored attributes (a JSON object) into MVT values,
// appended to out: integers as integers, other numbers as doubles,
// booleans, strings, nested values as their JSON text, nulls left out.
// Flat objects, the usual case, are scanned in place (keys and strings
// point into b); anything unusual goes through encoding/json.
func attrPairs(b []byte, out []pair) ([]pair, error) {
	if len(b) == 0 {
		return out, nil
	}
	if ps, ok := scanFlat(b, out); ok {
		return ps, nil
	}
	m, err := decodeProperties(b)
	if err != nil {
		return nil, err
	}
	for k, v := range m {
		p := pair{key: []byte(k)}
		switch v := v.(type) {
		case string:
			p.kind, p.s = kindString, []byte(v)
		case int64:
			p.kind, p.i = kindInt, v
		case float64:
			p.kind, p.f = kindDouble, v
		case bool:
			p.kind = kindBool
			if v {
				p.i = 1
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// decodeProperties is properties through encoding/json.
func decodeProperties(attrs []byte) (geojson.Properties, error) {
	dec := json.NewDecoder(bytes.NewReader(attrs))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("bad attributes: %w", err)
	}
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case json.Number:
			m[k] = number(string(v))
		case map[string]any, []any:
			b, _ := json.Marshal(v)
			m[k] = string(b)
		}
	}
	return m, nil
}

// scanNumber reads a JSON number as number does, without copying it: an
// int64 when it is one (isInt), else a float64; ok is false for neither.
func scanNumber(b []byte) (i int64, f float64, isInt, ok bool) {
	s := transient(b)
	if !bytes.ContainsAny(b, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, 0, true, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return 0, f, false, err == nil
}

// number is a JSON number as an int64 when it is one, else a float64.
func number(s string) any {
	i, f, isInt, ok := scanNumber([]byte(s))
	switch {
	case !ok:
		return s
	case isInt:
		return i
	}
	return f
}

// scanFlat reads an object of strings without escapes, numbers, booleans
// and nulls into out; ok is false for anything else.
func scanFlat(b []byte, out []pair) ([]pair, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, skipSpace(b, i+1) == len(b)
	}
	for {
		key, j, ok := plainString(b, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return nil, false
		}
		p := pair{key: key}
		switch c := b[i]; {
		case c == '"':
			s, j, ok := plainString(b, i)
			if !ok {
				return nil, false
			}
			p.kind, p.s, i = kindString, s, j
			out = append(out, p)
		case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
			p.kind, p.i, i = kindBool, 1, i+4
			out = append(out, p)
		case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
			p.kind, i = kindBool, i+5
			out = append(out, p)
		case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
			i += 4
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
				j++
			}
			n, f, isInt, ok := scanNumber(b[i:j])
			switch {
			case !ok:
				return nil, false
			case isInt:
				p.kind, p.i = kindInt, n
			default:
				p.kind, p.f = kindDouble, f
			}
			out, i = append(out, p), j
		default:
			return nil, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, false
		}
		if b[i] == '}' {
			return out, skipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return nil, false
		}
		i = skipSpace(b, i+1)
	}
}

// plainString reads a JSON string without escapes at b[i]: its bytes
// within b and the position after it.
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
