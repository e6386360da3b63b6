package rest

import (
	"net/http"

	"github.com/geopub/geopub/internal/apidoc"
)

// ssoOps documents the list of single sign-on providers.
func ssoOps(ops *[]*apidoc.Operation) {
	s := docs{ops: ops, tag: "Session and tokens", read: "*", write: "*"}
	s.op(http.MethodGet, "/session/providers", "The single sign-on (OpenID Connect) providers; a browser signs in at start_url").
		Public().Paging().ReturnsJSON(200, "The providers, in the operator's order.", []signInProviderJSON{})
}
