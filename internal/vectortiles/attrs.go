package vectortiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/paulmach/orb/geojson"
)

// properties decodes stored attributes (a JSON object) into MVT values:
// integers as integers, other numbers as doubles, booleans, strings,
// nested values as their JSON text, nulls left out. Flat objects, the
// usual case, are scanned directly; anything unusual goes through
// encoding/json.
func properties(attrs []byte) (geojson.Properties, error) {
	if len(attrs) == 0 {
		return nil, nil
	}
	if m, ok := scanFlat(attrs); ok {
		return m, nil
	}
	return decodeProperties(attrs)
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

// number is a JSON number as an int64 when it is one, else a float64.
func number(s string) any {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

// scanFlat reads an object of strings without escapes, numbers, booleans
// and nulls; ok is false for anything else.
func scanFlat(b []byte) (geojson.Properties, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	m := geojson.Properties{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, skipSpace(b, i+1) == len(b)
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
		switch c := b[i]; {
		case c == '"':
			s, j, ok := plainString(b, i)
			if !ok {
				return nil, false
			}
			m[key], i = s, j
		case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
			m[key], i = true, i+4
		case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
			m[key], i = false, i+5
		case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
			i += 4
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
				j++
			}
			v := number(string(b[i:j]))
			if _, bad := v.(string); bad {
				return nil, false
			}
			m[key], i = v, j
		default:
			return nil, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, false
		}
		if b[i] == '}' {
			return m, skipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return nil, false
		}
		i = skipSpace(b, i+1)
	}
}

// plainString reads a JSON string without escapes at b[i].
func plainString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return string(b[i+1 : j]), j + 1, true
		case c == '\\' || c < 0x20:
			return "", 0, false
		}
	}
	return "", 0, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
