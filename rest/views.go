package rest

import (
	"net/http"
	"regexp"
	"strings"
	"unicode"

	"github.com/go-chi/chi/v5"
)

// Spec, Conventions for list endpoints: "An OPTIONS request on a view
// returns an object with `name` and `expansions` (array of valid names)."
//
// Every route group registers its routes through a viewRouter, so every
// GET route gets its OPTIONS description in the same place and under the
// same middleware (the group's Accepted-OAuth-Scopes): a new GET route
// cannot be added without one.

// The expansions the views offer; the handlers pass the same slices to
// expandOf, so what OPTIONS lists is what the view accepts.
var (
	expandList      = []string{"list"}
	expandGroupList = []string{"list", "list.permissions"}
	expandGroup     = []string{"permissions"}
	expandSetItems  = []string{"items"}
)

// viewInfo is what OPTIONS tells about one view.
type viewInfo struct {
	name       string
	expansions []string
	// filters, when set, adds the view's filter choices to its
	// description (OPTIONS /data/: the country choices, api-shapes §4.1).
	filters func() map[string]any
}

// views are the views whose name the path does not say well, or that offer
// expansions, keyed by viewKey. Every other GET route is described by
// viewName.
var views = map[string]viewInfo{
	"/groups":                      {name: "Group List", expansions: expandGroupList},
	"/groups/{gid}":                {name: "Group", expansions: expandGroup},
	"/group/{gid}":                 {name: "Group", expansions: expandGroup},
	"/groups/{gid}/request-access": {name: "Access Request", expansions: nil},
	"/sets":                        {name: "Set List", expansions: expandList},
	"/sets/drafts":                 {name: "Set Draft List", expansions: expandList},
	"/sets/{sid}":                  {name: "Set", expansions: expandSetItems},
	"/sets/{sid}/versions/{vid}":   {name: "Set Version", expansions: expandSetItems},
	"/layers":                      {name: "Layer List", expansions: expandList},
	"/layers/drafts":               {name: "Layer Draft List", expansions: expandList},
	"/tables":                      {name: "Table List", expansions: expandList},
	"/tables/drafts":               {name: "Table Draft List", expansions: expandList},
	"/items":                       {name: "Catalog Item List", expansions: expandList},
	"/items/drafts":                {name: "Catalog Item Draft List", expansions: expandList},
	"/sources":                     {name: "Source List", expansions: expandList},
	"/audit":                       {name: "Audit Entry List"},
	"/sources/{sid}/datasources":   {name: "Datasource List", expansions: expandList},
	"/users/me":                    {name: "User", expansions: nil},
	"/users/{uid}/access":          {name: "User Access List", expansions: nil},
	"/site/settings":               {name: "Site Settings", expansions: nil},
	"/publish":                     {name: "Publish Group List", expansions: nil},
	"/publish/{pid}":               {name: "Publish Group", expansions: nil},
	"/openapi.json":                {name: "OpenAPI Document", expansions: nil},
	"/data":                        {name: "Data List", expansions: expandCatalog, filters: catalogFilters},
	"/data/latest":                 {name: "Data Latest List", expansions: expandCatalog, filters: catalogFilters},
	"/users/me/data":               {name: "User Data List", expansions: expandCatalog, filters: catalogFilters},
	"/docs":                        {name: "API Reference", expansions: nil},
}

var viewParamRE = regexp.MustCompile(`\{([a-z]+):[^}]*\}`)

// viewKey is a route pattern without its parameters' regular expressions
// and trailing slash: /sets/{sid}/versions/{vid}.
func viewKey(pattern string) string {
	return viewParamRE.ReplaceAllString(strings.TrimSuffix(pattern, "/"), "{$1}")
}

// viewOf describes the view at a route pattern.
func viewOf(pattern string) viewInfo {
	key := viewKey(pattern)
	if v, ok := views[key]; ok {
		return v
	}
	return viewInfo{name: viewName(key)}
}

// viewName names a view after its path: the singular of each collection
// it descends through, then "List" when the path ends on a collection
// rather than on one member or a single resource: /layers/{lid}/versions
// is "Layer Version List", /groups/{gid}/permissions/user.{uid} "Group
// Permission", /layers/{lid}/versions/{vid}/metadata/iso "Layer Version
// Metadata ISO".
func viewName(key string) string {
	var words []string
	list := false
	for _, seg := range strings.Split(strings.Trim(key, "/"), "/") {
		if seg == "" {
			continue
		}
		if strings.Contains(seg, "{") { // {id}, user.{uid}: one member
			list = false
			continue
		}
		list = false
		for _, w := range strings.Split(seg, "-") {
			one := singular(w)
			list = one != w || w == "feedback"
			words = append(words, viewWord(one))
		}
	}
	if list {
		words = append(words, "List")
	}
	return strings.Join(words, " ")
}

// viewWord is how a path word reads in a view's name.
func viewWord(w string) string {
	switch w {
	case "iso", "dc", "fgdc":
		return strings.ToUpper(w)
	case "item":
		return "Catalog Item"
	}
	return titleWord(w)
}

// singular undoes the plural of a path word; other words are returned
// as they are.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ss"), w == "metadata":
		return w
	case strings.HasSuffix(w, "ies"):
		return strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "s"):
		return strings.TrimSuffix(w, "s")
	}
	return w
}

func titleWord(w string) string {
	if w == "" {
		return w
	}
	r := []rune(w)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// viewRouter is a chi.Router whose GET routes also answer OPTIONS with
// their view's description.
type viewRouter struct {
	chi.Router
	api *API
}

// withViews wraps a route group's router (unless it is already wrapped).
func (a *API) withViews(r chi.Router) chi.Router {
	if _, ok := r.(viewRouter); ok {
		return r
	}
	return viewRouter{Router: r, api: a}
}

// Get adds the GET route and its OPTIONS description.
func (v viewRouter) Get(pattern string, h http.HandlerFunc) {
	v.Router.Get(pattern, h)
	info := viewOf(pattern)
	if info.filters != nil {
		v.Router.Options(pattern, v.api.handle(optionsWithFilters(info.name, info.filters, info.expansions...)))
		return
	}
	v.Router.Options(pattern, v.api.handle(options(info.name, info.expansions...)))
}

// Method adds the route, and for GET its OPTIONS description.
func (v viewRouter) Method(method, pattern string, h http.Handler) {
	if method == http.MethodGet {
		v.Get(pattern, h.ServeHTTP)
		return
	}
	v.Router.Method(method, pattern, h)
}

// Group keeps the sub-group's GET routes described.
func (v viewRouter) Group(fn func(r chi.Router)) chi.Router {
	return v.Router.Group(func(r chi.Router) { fn(v.api.withViews(r)) })
}

// With keeps the inline router's GET routes described.
func (v viewRouter) With(middlewares ...func(http.Handler) http.Handler) chi.Router {
	return v.api.withViews(v.Router.With(middlewares...))
}

// Route keeps the sub-router's GET routes described.
func (v viewRouter) Route(pattern string, fn func(r chi.Router)) chi.Router {
	return v.Router.Route(pattern, func(r chi.Router) { fn(v.api.withViews(r)) })
}
