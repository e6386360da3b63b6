package queryapi

import (
	"net/http"
	"strings"

	"github.com/geopub/geopub/internal/auth"
)

// AuthFailure answers a point query whose credentials the authentication
// middleware refused (an unknown, expired or locked key, a referrer the
// key does not allow). Spec, vector query parameters: with `callback`,
// "most errors are then returned with status 200 and a string message";
// so a JSONP request gets its refusal as every other error, 200 and
// /**/callback("message");. Other requests get the middleware's answer.
// A callback name that is not an identifier is never echoed.
func AuthFailure(w http.ResponseWriter, r *http.Request, status int, detail string) {
	q := parseQuery(r.URL.RawQuery)
	cb, err := parseCallback(q)
	if err != nil || cb == "" || !jsonpPath(r) {
		auth.WriteFailure(w, r, status, detail)
		return
	}
	auth.SetAcceptedScopes(w.Header(), acceptedScopesValue)
	reply{w: w, callback: cb}.fail(status, detail)
}

// jsonpPath reports whether r asks for a JSON format, the only ones JSONP
// wraps: not an .xml suffix, nor XML by Accept on a path without suffix.
func jsonpPath(r *http.Request) bool {
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case strings.HasSuffix(p, ".xml"):
		return false
	case strings.HasSuffix(p, ".json"):
		return true
	}
	accept := r.Header.Get("Accept")
	return !strings.Contains(accept, "xml") || strings.Contains(accept, "json")
}
