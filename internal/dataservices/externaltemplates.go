package dataservices

import (
	"fmt"
	"slices"
	"strings"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/apperr"
)

// TemplateScopes are the values an external service template's scope may
// hold: all, or the owner types it attaches to.
var TemplateScopes = []string{"all", string(Layer), string(Table), string(Set), string(CatalogItem)}

// AllUsers is the one access policy templates take: whoever may use the
// dataset may use its external services.
const AllUsers = "all-users"

// Template is an external service template as a request gives it.
type Template struct {
	Title string
	// URLs are the template URLs; Name may be empty.
	URLs         []schematype.ServiceURL
	Scope        []string
	AccessPolicy string
}

// CheckTemplate validates a template request: a title, one to three
// usable URLs, a scope of known values and the all-users policy. It
// returns the URLs trimmed, as they are stored.
func CheckTemplate(t Template) ([]schematype.ServiceURL, error) {
	if strings.TrimSpace(t.Title) == "" {
		return nil, apperr.Field("title", "This field is required.")
	}
	if n := len(t.URLs); n < 1 || n > 3 {
		return nil, apperr.Field("template_urls", fmt.Sprintf("Give 1 to 3 template URLs, not %d.", n))
	}
	urls := make([]schematype.ServiceURL, len(t.URLs))
	for i, u := range t.URLs {
		if err := CheckTemplateURL(u.ServiceURL); err != nil {
			return nil, apperr.Field("template_urls", err.Error()+".")
		}
		urls[i] = schematype.ServiceURL{ServiceURL: strings.TrimSpace(u.ServiceURL), Name: u.Name}
	}
	if len(t.Scope) == 0 {
		return nil, apperr.Field("scope", "Give the dataset types it attaches to, or all.")
	}
	for _, s := range t.Scope {
		if !slices.Contains(TemplateScopes, s) {
			return nil, apperr.Field("scope", fmt.Sprintf("%q is not one of %s.", s, strings.Join(TemplateScopes, ", ")))
		}
	}
	if t.AccessPolicy != AllUsers {
		return nil, apperr.Field("access_policy", fmt.Sprintf("%q is not supported: all-users (whoever may use the dataset) is.", t.AccessPolicy))
	}
	return urls, nil
}

// TemplateFits reports whether a template of scope attaches to an owner
// type.
func TemplateFits(scope []string, o Owner) bool {
	return slices.Contains(scope, "all") || slices.Contains(scope, string(o))
}

// FillTemplate is a template's URLs filled for one dataset (see Fill): its
// id as its URLs name it and its title, from which the short name comes.
func FillTemplate(urls []schematype.ServiceURL, id, title string) []schematype.ServiceURL {
	out := make([]schematype.ServiceURL, len(urls))
	for i, u := range urls {
		out[i] = schematype.ServiceURL{ServiceURL: Fill(u.ServiceURL, id, ShortName(title), title), Name: u.Name}
	}
	return out
}
