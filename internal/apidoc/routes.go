package apidoc

import (
	"net/http"
	"sort"
	"strings"

	"github.com/go-chi/chi/v5"
)

// Route is a route a router registers: a method and a chi pattern.
type Route struct{ Method, Pattern string }

func (r Route) String() string { return r.Method + " " + r.Pattern }

// Routes lists the routes of router as chi.Walk finds them, leaving out
// OPTIONS (which describes a view rather than operating on it) and
// trailing slashes.
func Routes(router chi.Routes) ([]Route, error) {
	var out []Route
	err := chi.Walk(router, func(method, pattern string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method != http.MethodOptions {
			out = append(out, Route{method, trimSlash(pattern)})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, err
}

// Diff compares the routes of a router with the operations documenting
// them: undocumented are routes no operation documents, unrouted are
// operations whose route the router does not have.
func Diff(routes []Route, ops []*Operation) (undocumented []Route, unrouted []*Operation) {
	documented := map[Route]bool{}
	for _, o := range ops {
		documented[Route{o.Method, trimSlash(o.Pattern)}] = true
	}
	routed := map[Route]bool{}
	for _, r := range routes {
		routed[r] = true
		if !documented[r] {
			undocumented = append(undocumented, r)
		}
	}
	for _, o := range ops {
		if !routed[Route{o.Method, trimSlash(o.Pattern)}] {
			unrouted = append(unrouted, o)
		}
	}
	return undocumented, unrouted
}

func trimSlash(p string) string {
	if len(p) > 1 {
		return strings.TrimSuffix(p, "/")
	}
	return p
}
