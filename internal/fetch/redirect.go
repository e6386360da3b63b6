package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrCredentialsElsewhere reports a redirect that would carry a request's
// credentials to another origin: Geopub does not follow it.
var ErrCredentialsElsewhere = errors.New("fetch: a redirect to another origin would carry the request's credentials; not followed")

// checkRedirect is the redirect policy of every guarded client: at most
// five hops, http(s) only, and nothing of the credentials crosses to
// another origin than the first request's (scheme, host and port). A
// hop elsewhere goes without credential headers; one that would re-send
// a body (a 307 or 308 of a form holding a password) or whose URL holds
// a token of the requests before it, or the source's password, is not
// followed. originAuth keeps basic auth at the source's origin too.
func checkRedirect(password string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to unsupported scheme %q", req.URL.Scheme)
		}
		if originOf(req.URL) == originOf(via[0].URL) {
			return nil
		}
		if req.Body != nil && req.Body != http.NoBody {
			return ErrCredentialsElsewhere
		}
		target := req.URL.String()
		for _, s := range secretsOf(via, password) {
			if strings.Contains(target, s) {
				return ErrCredentialsElsewhere
			}
		}
		for name := range req.Header {
			if credentialHeader(name) {
				req.Header.Del(name)
			}
		}
		return nil
	}
}

// secretsOf are the token query values of the requests so far, and the
// password: none may appear in a URL of another origin.
func secretsOf(via []*http.Request, password string) []string {
	var out []string
	if len(password) >= 3 {
		out = append(out, password)
	}
	for _, r := range via {
		for k, vs := range r.URL.Query() {
			if !strings.Contains(strings.ToLower(k), "token") && !strings.EqualFold(k, "key") {
				continue
			}
			for _, v := range vs {
				if len(v) >= 3 {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// credentialHeader reports whether a header may hold a credential.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"authorization", "cookie", "token", "api-key", "apikey", "x-amz-security"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
