package vectortiles

import (
	"reflect"
	"testing"
)

// pairMap is pairs as the values properties would hold.
func pairMap(ps []pair) map[string]any {
	m := map[string]any{}
	for _, p := range ps {
		switch p.kind {
		case kindString:
			m[string(p.key)] = string(p.s)
		case kindInt:
			m[string(p.key)] = p.i
		case kindDouble:
			m[string(p.key)] = p.f
		case kindBool:
			m[string(p.key)] = p.i == 1
		}
	}
	return m
}

// The direct scan and encoding/json agree; what the scan refuses goes
// through encoding/json.
func TestAttrPairs(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { } `,
		`{"name":"a","rank":3,"big":12345678901234,"f":1.5,"e":-2e3,"ok":true,"no":false,"gone":null}`,
		`{"name": "a", "rank": 3}`,
		`{"esc":"a\"b","n":-0}`,
		`{"nested":{"a":[1,2]},"list":[1,"x"]}`,
		`{"u":"ü ☃"}`,
	} {
		got, err := attrPairs([]byte(in), nil)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want, err := decodeProperties([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !reflect.DeepEqual(pairMap(got), map[string]any(want)) {
			t.Fatalf("%s: %#v, want %#v", in, pairMap(got), want)
		}
	}
	if _, err := attrPairs([]byte(`{"a":`), nil); err == nil {
		t.Fatal("bad JSON accepted")
	}
	m := pairMap(must(attrPairs([]byte(`{"n":3,"f":2.5,"s":"x","gone":null}`), nil)))
	if m["n"] != int64(3) || m["f"] != 2.5 || m["s"] != "x" || len(m) != 3 {
		t.Fatalf("%#v", m)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
