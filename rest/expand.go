package rest

import (
	"net/http"
	"strings"

	"github.com/geopub/geopub/internal/apperr"
)

// expansions is the parsed Expand request header.
type expansions map[string]bool

// expandOf parses the Expand header: comma-separated property names.
// Names the view does not offer are ignored; the special `list` cannot be
// combined with detail expansions (names without the `list.` prefix).
func expandOf(r *http.Request, offered []string) (expansions, error) {
	ex := expansions{}
	known := map[string]bool{}
	for _, o := range offered {
		known[o] = true
	}
	for _, h := range r.Header.Values("Expand") {
		for _, name := range strings.Split(h, ",") {
			name = strings.TrimSpace(name)
			if known[name] {
				ex[name] = true
			}
		}
	}
	if ex["list"] {
		for name := range ex {
			if name != "list" && !strings.HasPrefix(name, "list.") {
				return nil, apperr.New(apperr.Invalid, "The list expansion cannot be combined with the detail expansion %q.", name)
			}
		}
	}
	return ex, nil
}

// options answers OPTIONS on a view with its name and valid expansions.
func options(name string, expansions ...string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if expansions == nil {
			expansions = []string{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"name": name, "expansions": expansions})
		return nil
	}
}

// optionsWithFilters is options with the view's filter choices.
func optionsWithFilters(name string, filters func() map[string]any, expansions ...string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if expansions == nil {
			expansions = []string{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"name": name, "expansions": expansions, "filters": filters()})
		return nil
	}
}
