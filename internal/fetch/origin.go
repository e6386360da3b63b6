package fetch

import (
	"net/http"
	"net/url"
	"strings"
)

// origin is a URL's scheme, host and port: the party a source's
// credentials were given for.
type origin struct{ scheme, host, port string }

// originOf is u's origin, with the scheme's default port made explicit so
// https://h and https://h:443 are one origin.
func originOf(u *url.URL) origin {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return origin{scheme: scheme, host: strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), port: port}
}

// originAuth adds basic-auth credentials to the requests, first and
// redirected, that go to the origin they were given for, and to no other.
// The request Download builds carries no Authorization header, so the
// http.Client has none to copy onto redirects: this transport is the one
// place credentials are attached, hop by hop.
type originAuth struct {
	next       http.RoundTripper
	origin     origin
	user, pass string
}

func (t *originAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	if originOf(req.URL) != t.origin {
		if req.Header.Get("Authorization") == "" {
			return t.next.RoundTrip(req)
		}
		req = req.Clone(req.Context())
		req.Header.Del("Authorization")
		return t.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.SetBasicAuth(t.user, t.pass)
	return t.next.RoundTrip(req)
}
