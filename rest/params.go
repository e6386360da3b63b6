package rest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/apperr"
)

// query reads recognised query parameters. Unknown parameters are ignored;
// a recognised one with a bad value is a 400 naming it.
type query struct{ v url.Values }

func queryOf(r *http.Request) query { return query{r.URL.Query()} }

// paging reads the page and page_size parameters (nil when absent).
func (q query) paging() (page, size *int, err error) {
	if page, err = q.intPtr("page"); err != nil {
		return nil, nil, err
	}
	size, err = q.intPtr("page_size")
	return page, size, err
}

// intPtr reads an optional integer.
func (q query) intPtr(name string) (*int, error) {
	s := strings.TrimSpace(q.v.Get(name))
	if s == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, apperr.Field(name, fmt.Sprintf("A valid integer is required, not %q.", s))
	}
	return &n, nil
}

// boolPtr reads an optional boolean: true/false in any case (existing
// clients send Python's True and False) or 1/0.
func (q query) boolPtr(name string) (*bool, error) {
	s := strings.TrimSpace(q.v.Get(name))
	if s == "" {
		return nil, nil
	}
	switch strings.ToLower(s) {
	case "true", "1", "yes":
		b := true
		return &b, nil
	case "false", "0", "no":
		b := false
		return &b, nil
	}
	return nil, apperr.Field(name, fmt.Sprintf("Must be true or false, not %q.", s))
}

// strPtr reads an optional string.
func (q query) strPtr(name string) *string {
	if !q.v.Has(name) {
		return nil
	}
	s := q.v.Get(name)
	return &s
}

// all reads a repeatable parameter; comma-separated values count as
// repeats too.
func (q query) all(name string) []string {
	var out []string
	for _, v := range q.v[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// oneOf checks every value of a repeatable parameter against allowed.
func (q query) oneOf(name string, allowed ...string) ([]string, error) {
	vals := q.all(name)
	for _, v := range vals {
		ok := false
		for _, a := range allowed {
			ok = ok || v == a
		}
		if !ok {
			return nil, apperr.Field(name, fmt.Sprintf("Select a valid choice. %q is not one of: %s.", v, strings.Join(allowed, ", ")))
		}
	}
	return vals, nil
}

// pathID reads an integer path parameter; the routes' patterns already
// admit digits only, so failure means a number too large: not found.
func pathID(r *http.Request, name string) (int, error) {
	n, err := strconv.Atoi(chi.URLParam(r, name))
	if err != nil || n < 1 {
		return 0, apperr.ErrNotFound
	}
	return n, nil
}

// versionPath reads the dataset id (path parameter datasetParam) and the
// version id (vid) of a version route.
func versionPath(r *http.Request, datasetParam string) (datasetID, versionID int, err error) {
	if datasetID, err = pathID(r, datasetParam); err != nil {
		return 0, 0, err
	}
	versionID, err = pathID(r, "vid")
	return datasetID, versionID, err
}

// pickVersion reads the {vid} segment of a version route: "draft",
// "published" or a version number. current returns the draft (draft true)
// or published version, the zero V when there is none, which is 404
// naming the dataset (noun); byID loads a numbered version.
func pickVersion[V comparable](r *http.Request, noun string, current func(draft bool) (V, error), byID func(vid int) (V, error)) (V, error) {
	var zero V
	switch name := chi.URLParam(r, "vid"); name {
	case "draft", "published":
		v, err := current(name == "draft")
		if err == nil && v == zero {
			err = apperr.New(apperr.NotFound, "%s has no %s version.", noun, name)
		}
		return v, err
	}
	vid, err := pathID(r, "vid")
	if err != nil {
		return zero, err
	}
	return byID(vid)
}
