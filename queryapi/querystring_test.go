package queryapi

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// parseQuery must read every query string as url.URL.Query does.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"", "key=abc&layer=1&layer=2&x=174.7&y=-41.2&max_results=10",
		"a=1;b=2&c=3", "%zz=1&b=%41", "a+b=c+d&a%20b=e", "&&=&a&a=&=b", "layer=1&layer=2&layer=3&layer=4",
		"k=v&" + strings.Repeat("x=1&", 40),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		want, _ := url.ParseQuery(raw)
		got := parseQuery(raw)
		if len(want) == 0 && len(got) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseQuery(%q) = %v, url.ParseQuery gives %v", raw, got, want)
		}
	})
}

func TestParseQueryRepeatedKeysDoNotShareValues(t *testing.T) {
	q := parseQuery("a=1&b=2&a=3&c=4&b=5")
	want := url.Values{"a": {"1", "3"}, "b": {"2", "5"}, "c": {"4"}}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("got %v, want %v", q, want)
	}
}

func TestParseQueryTooManyParameters(t *testing.T) {
	raw := strings.Repeat("a=1&", maxQueryParams)
	if got, want := len(parseQuery(raw)), len((&url.URL{RawQuery: raw}).Query()); got != want {
		t.Fatalf("%d params read, url.URL.Query reads %d", got, want)
	}
}
