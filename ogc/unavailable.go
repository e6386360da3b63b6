package ogc

import (
	"net/http"
	"strconv"

	"github.com/geopub/geopub/internal/apperr"
)

// unavailable reports whether err is the service declining the work (busy
// with other heavy reads, its database out of reach, or the request's
// time budget spent) rather than a failure: every door answers it (503
// busy or unreachable, 504 out of time) with its message, and sets
// Retry-After when the service says when to come back.
func unavailable(w http.ResponseWriter, err error) (*apperr.Error, bool) {
	e := apperr.As(err)
	if e.Code != apperr.Unavailable && e.Code != apperr.TimedOut {
		return nil, false
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	return e, true
}
