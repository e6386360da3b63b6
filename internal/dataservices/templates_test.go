package dataservices

import (
	"net/url"
	"testing"
)

func TestFill(t *testing.T) {
	for _, c := range []struct {
		name, template, title, want string
	}{
		{"Tokens", "https://maps.example.com/{id}/{shortname}?title={title}", "Roads",
			"https://maps.example.com/42/roads?title=Roads"},
		{"TilePlaceholdersKept", "https://tiles.example.com/{shortname}/{z}/{x}/{y}.png", "Roads",
			"https://tiles.example.com/roads/{z}/{x}/{y}.png"},
		{"Spaces", "https://x.example.com/{shortname}/{title}", "NZ Road Centrelines",
			"https://x.example.com/nz-road-centrelines/NZ%20Road%20Centrelines"},
		{"Unicode", "https://x.example.com/{shortname}?q={title}", "Ōtautahi – Rōpū wai",
			"https://x.example.com/%C5%8Dtautahi-r%C5%8Dp%C5%AB-wai?q=%C5%8Ctautahi%20%E2%80%93%20R%C5%8Dp%C5%AB%20wai"},
		{"ReservedCharacters", "https://x.example.com/a?t={title}&id={id}", "a/b & c=d?#",
			"https://x.example.com/a?t=a%2Fb%20%26%20c%3Dd%3F%23&id=42"},
		{"UnknownTokensKept", "https://x.example.com/{id}/{layer}/{TITLE}", "T",
			"https://x.example.com/42/{layer}/{TITLE}"},
		{"Repeated", "https://x.example.com/{id}/{id}", "T", "https://x.example.com/42/42"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Fill(c.template, "42", ShortName(c.title), c.title)
			if got != c.want {
				t.Fatalf("Fill = %q\n want %q", got, c.want)
			}
		})
	}
	// A filled title decodes back to itself.
	title := "Ōtautahi – Rōpū wai & more/less"
	u, err := url.Parse(Fill("https://x.example.com/p?t={title}", "1", "", title))
	if err != nil || u.Query().Get("t") != title {
		t.Fatalf("round trip: %v %q", err, u.Query().Get("t"))
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{
		"NZ Road Centrelines (Topo, 1:50k)": "nz-road-centrelines-topo-1-50k",
		"  Ōtautahi  ":                      "ōtautahi",
		"---":                               "",
		"Building_Outlines v2":              "building-outlines-v2",
	} {
		if got := ShortName(in); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckTemplateURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://tiles.example.com/{shortname}/{z}/{x}/{y}.png": true,
		"http://wms.example.com/?layers={id}":                   true,
		"ftp://example.com/{id}":                                false,
		"/relative/{id}":                                        false,
		"":                                                      false,
		"javascript:alert(1)":                                   false,
	} {
		if err := CheckTemplateURL(u); (err == nil) != ok {
			t.Errorf("CheckTemplateURL(%q) = %v, want ok=%v", u, err, ok)
		}
	}
}
