package rest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/forwarded"
)

// links builds the absolute URLs of one request's responses.
type links struct {
	origin  string
	version string
}

func (a *API) links(r *http.Request) links {
	origin := strings.TrimRight(a.baseURL, "/")
	if origin == "" {
		origin = forwarded.Origin(r)
	}
	v := chi.URLParam(r, "version")
	if v == "" {
		v = "v1.x"
	}
	return links{origin: origin, version: v}
}

// api returns the absolute URL of an API path, with its trailing slash.
func (l links) api(format string, args ...any) string {
	return l.origin + "/services/api/" + l.version + "/" + fmt.Sprintf(format, args...)
}

// html returns the absolute URL of a web page.
func (l links) html(format string, args ...any) string {
	return l.origin + "/" + fmt.Sprintf(format, args...)
}
