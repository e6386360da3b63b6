package vectortiles

import (
	"reflect"
	"testing"
)

// The direct scan and encoding/json agree; what the scan refuses goes
// through encoding/json.
func TestProperties(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { } `,
		`{"name":"a","rank":3,"big":12345678901234,"f":1.5,"e":-2e3,"ok":true,"no":false,"gone":null}`,
		`{"name": "a", "rank": 3}`,
		`{"esc":"a\"b","n":-0}`,
		`{"nested":{"a":[1,2]},"list":[1,"x"]}`,
		`{"u":"ü ☃"}`,
	} {
		got, err := properties([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want, err := decodeProperties([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !reflect.DeepEqual(map[string]any(got), map[string]any(want)) {
			t.Fatalf("%s: %#v, want %#v", in, got, want)
		}
	}
	if _, err := properties([]byte(`{"a":`)); err == nil {
		t.Fatal("bad JSON accepted")
	}
	if m, _ := properties([]byte(`{"n":3,"f":2.5,"s":"x","gone":null}`)); m["n"] != int64(3) || m["f"] != 2.5 || m["s"] != "x" || len(m) != 3 {
		t.Fatalf("%#v", m)
	}
}
