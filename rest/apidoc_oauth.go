package rest

import (
	"net/http"

	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
)

// oauthClientOps documents the OAuth clients' registry (site
// administrators; docs/oauth.md).
func oauthClientOps(ops *[]*apidoc.Operation) {
	o := docs{ops: ops, tag: "OAuth clients", read: auth.ScopeUsersRead, write: auth.ScopeUsersWrite}
	body := "name, client_type (public or confidential, on create only), redirect_uris (absolute, no fragment: https, " +
		"http on a loopback address only, which then matches any port, or a private-use scheme such as org.example.app:/cb), " +
		"scope (space-delimited OAuth scopes the client may ask for: read, or API token scopes; read when absent)."
	o.op(http.MethodGet, "/oauth-clients", "The registered OAuth clients").Private().Paging().
		ReturnsJSON(200, "The clients, oldest first (site administrators only).", []oauthClientJSON{})
	o.op(http.MethodPost, "/oauth-clients", "Register an OAuth client").Private().
		Describe("Site administrators only. A confidential client's answer carries client_secret, shown this once. Body: "+body).
		AcceptsJSON(oauthClientBody{}).ReturnsJSON(201, "The client (with its secret when confidential).", oauthClientJSON{})
	o.op(http.MethodGet, "/oauth-clients/{cid:[0-9]+}", "An OAuth client").Private().ReturnsJSON(200, "The client.", oauthClientJSON{})
	o.op(http.MethodPut, "/oauth-clients/{cid:[0-9]+}", "Change an OAuth client").Private().
		Describe("Fields left out stay; client_type never changes. Body: "+body).
		AcceptsJSON(oauthClientBody{}).ReturnsJSON(200, "The client.", oauthClientJSON{})
	o.op(http.MethodDelete, "/oauth-clients/{cid:[0-9]+}", "Delete an OAuth client").Private().
		Describe("Every grant given to it and every token issued under them end at once.").NoContent("Deleted.")
}
