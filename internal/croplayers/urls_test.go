package croplayers

import "testing"

func TestParseFeatureURL(t *testing.T) {
	for url, want := range map[string][2]int{
		"https://data.example.com/services/api/v1/exports/croplayers/3/cropfeatures/0/":   {3, 0},
		"http://127.0.0.1:8080/services/api/v1.x/exports/croplayers/12/cropfeatures/456/": {12, 456},
		"/services/api/v1.x/exports/croplayers/1/cropfeatures/2":                          {1, 2},
	} {
		id, fid, ok := ParseFeatureURL(url)
		if !ok || id != want[0] || fid != want[1] {
			t.Errorf("%s: %d %d %v, want %v", url, id, fid, ok, want)
		}
	}
	for _, bad := range []string{
		"", "https://x/services/api/v1/exports/croplayers/3/", "https://x/services/api/v2/exports/croplayers/3/cropfeatures/1/",
		"https://x/services/api/v1/exports/croplayers/3/cropfeatures/-1/", "https://x/services/api/v1/exports/croplayers/3/cropfeatures/1/extra/",
		"https://x/services/api/v1/layers/3/", "https://x/services/api/v1/exports/croplayers/99999999999/cropfeatures/1/",
	} {
		if _, _, ok := ParseFeatureURL(bad); ok {
			t.Errorf("%q parsed as a crop-feature URL", bad)
		}
	}
}

func TestParseLayer(t *testing.T) {
	for in, want := range map[string]int{"7": 7, " 12 ": 12, "https://h/services/api/v1.x/layers/5/": 5, "/services/api/v1/layers/9": 9} {
		if id, ok := parseLayer(in); !ok || id != want {
			t.Errorf("%q: %d %v", in, id, ok)
		}
	}
	for _, bad := range []string{"", "0", "-3", "roads", "https://h/services/api/v1/tables/5/x/"} {
		if _, ok := parseLayer(bad); ok {
			t.Errorf("%q parsed as a layer", bad)
		}
	}
}
