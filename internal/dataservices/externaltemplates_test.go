package dataservices

import (
	"slices"
	"testing"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/apperr"
)

func TestCheckTemplate(t *testing.T) {
	ok := Template{Title: "Maps", Scope: []string{"layer", "set"}, AccessPolicy: AllUsers,
		URLs: []schematype.ServiceURL{{ServiceURL: "https://maps.example.com/{id}/{z}/{x}/{y}.png  ", Name: "tiles"}}}
	urls, err := CheckTemplate(ok)
	if err != nil || len(urls) != 1 || urls[0].ServiceURL != "https://maps.example.com/{id}/{z}/{x}/{y}.png" || urls[0].Name != "tiles" {
		t.Fatalf("CheckTemplate = %+v, %v; want the URL trimmed, its name kept", urls, err)
	}
	url := schematype.ServiceURL{ServiceURL: "https://x.example.com/{id}"}
	for name, c := range map[string]struct {
		change func(*Template)
		field  string
	}{
		"NoTitle":       {func(t *Template) { t.Title = "  " }, "title"},
		"NoURLs":        {func(t *Template) { t.URLs = nil }, "template_urls"},
		"FourURLs":      {func(t *Template) { t.URLs = []schematype.ServiceURL{url, url, url, url} }, "template_urls"},
		"RelativeURL":   {func(t *Template) { t.URLs = []schematype.ServiceURL{{ServiceURL: "/maps/{id}"}} }, "template_urls"},
		"NoScope":       {func(t *Template) { t.Scope = nil }, "scope"},
		"UnknownScope":  {func(t *Template) { t.Scope = []string{"layer", "document"} }, "scope"},
		"AnotherPolicy": {func(t *Template) { t.AccessPolicy = "admins" }, "access_policy"},
	} {
		bad := ok
		c.change(&bad)
		_, err := CheckTemplate(bad)
		if e := apperr.As(err); e.Code != apperr.Invalid || len(e.Fields[c.field]) != 1 {
			t.Errorf("%s: %v, want INVALID on %s", name, err, c.field)
		}
	}
	three := ok
	three.URLs = []schematype.ServiceURL{url, url, url}
	three.Scope = TemplateScopes
	if _, err := CheckTemplate(three); err != nil {
		t.Errorf("three URLs, every scope: %v", err)
	}
}

func TestTemplateFits(t *testing.T) {
	for _, c := range []struct {
		scope []string
		owner Owner
		want  bool
	}{
		{[]string{"all"}, CatalogItem, true},
		{[]string{"layer"}, Layer, true},
		{[]string{"layer"}, Table, false},
		{[]string{"table", "set"}, Set, true},
		{nil, Layer, false},
	} {
		if got := TemplateFits(c.scope, c.owner); got != c.want {
			t.Errorf("TemplateFits(%v, %s) = %v", c.scope, c.owner, got)
		}
	}
}

func TestFillTemplate(t *testing.T) {
	got := FillTemplate([]schematype.ServiceURL{
		{ServiceURL: "https://x.example.com/{id}/{shortname}", Name: "page"},
		{ServiceURL: "https://x.example.com/{z}/{x}/{y}?t={title}"},
	}, "c12", "NZ Roads")
	want := []schematype.ServiceURL{
		{ServiceURL: "https://x.example.com/c12/nz-roads", Name: "page"},
		{ServiceURL: "https://x.example.com/{z}/{x}/{y}?t=NZ%20Roads"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("FillTemplate = %+v, want %+v", got, want)
	}
}
