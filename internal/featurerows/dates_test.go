package featurerows

import (
	"testing"
	"time"

	"github.com/geopub/geopub/ent/schema/schematype"
)

func TestServeDates(t *testing.T) {
	dates := DateFields([]schematype.Field{{Name: "d", Type: "date"}, {Name: "at", Type: "datetime"}, {Name: "it's", Type: "date"}})
	for _, tc := range []struct{ in, want string }{
		{`{"at":"2024-01-01T00:00:00Z","d":"2024-01-01T00:00:00Z"}`, `{"at":"2024-01-01T00:00:00Z","d":"2024-01-01"}`},
		{`{"n": 1, "d": "2024-02-29T00:00:00Z", "it's": "1999-12-31T00:00:00+00:00"}`, `{"n":1,"d":"2024-02-29","it's":"1999-12-31"}`},
		{`{"d":"2024-01-01"}`, `{"d":"2024-01-01"}`},
		{`{"d":null,"x":"2024-01-01T00:00:00Z"}`, `{"d":null,"x":"2024-01-01T00:00:00Z"}`},
		{`{"d":"not a dateT"}`, `{"d":"not a dateT"}`},
	} {
		if got := string(ServeDates([]byte(tc.in), dates)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.in, got, tc.want)
		}
	}
	if DateFields([]schematype.Field{{Name: "x", Type: "string"}}) != nil {
		t.Error("date fields of a layer without one")
	}
}

func TestStoreDates(t *testing.T) {
	at := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	m := map[string]any{"d": time.Date(1840, 1, 22, 0, 0, 0, 0, time.UTC), "at": at, "n": nil}
	StoreDates(m, map[string]bool{"d": true, "n": true}, nil)
	if m["d"] != "1840-01-22" || m["at"] != at || m["n"] != nil {
		t.Errorf("%v", m)
	}
}

// A time field's value is stored as a time of day, whatever form it came
// in (a clock from GDAL, text from PostgreSQL or a remote service).
func TestStoreTimes(t *testing.T) {
	times := TimeFields([]schematype.Field{{Name: "d", Type: "date"}, {Name: "t", Type: "time"}, {Name: "u", Type: "time"},
		{Name: "v", Type: "time"}, {Name: "w", Type: "time"}, {Name: "x", Type: "time"}, {Name: "n", Type: "time"}})
	m := map[string]any{"t": time.Date(0, 1, 1, 12, 34, 56, 0, time.UTC), "u": time.Date(0, 1, 1, 1, 2, 3, 250e6, time.UTC),
		"v": "9:05:00", "w": "12:34:56.789123", "x": "noon", "n": nil, "d": "12:00:00"}
	StoreDates(m, nil, times)
	for k, want := range map[string]any{"t": "12:34:56", "u": "01:02:03.25", "v": "09:05:00", "w": "12:34:56.789123",
		"x": "noon", "n": nil, "d": "12:00:00"} {
		if m[k] != want {
			t.Errorf("%s: %v, want %v", k, m[k], want)
		}
	}
}
