package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/oauthserver"
)

// oauthMatrixClient is the OAuth client the matrix reads, changes and
// deletes: site administrators only manage clients.
func oauthMatrixClient() map[string]any {
	return map[string]any{"name": "Matrix OAuth client", "client_type": "public", "redirect_uris": []string{"http://127.0.0.1/"}, "scope": "read"}
}

// addOAuthClient registers the fixture client, as {oauthclient}.
func (f *fixtures) addOAuthClient(t *testing.T) {
	t.Helper()
	ctx := auth.WithPrincipal(t.Context(), auth.Principal{Method: auth.SessionAuth, User: f.users[siteAdmin].User})
	c, err := f.e.Server.Resolver.OAuth.CreateClient(ctx, oauthserver.ClientSpec{Name: "Matrix OAuth client", RedirectURIs: []string{"http://127.0.0.1/"}})
	if err != nil {
		t.Fatal(err)
	}
	f.vars["oauthclient"] = itoa(c.Client.ID)
}

// oauthClientRules: the OAuth clients' registry is the site
// administrators' (users:read to read, users:write to change).
func oauthClientRules(rules map[string]rule) {
	base := "/oauth-clients/"
	one := base + "{oauthclient}/"
	rules["GET /oauth-clients"] = rule{targets: []target{{base, siteOnly}}}
	rules["POST /oauth-clients"] = rule{targets: []target{{base, siteOnly}}, body: bodyOf(oauthMatrixClient())}
	rules["GET /oauth-clients/{cid}"] = rule{targets: []target{{one, siteOnly}}}
	rules["PUT /oauth-clients/{cid}"] = rule{targets: []target{{one, siteOnly}}, body: bodyOf(map[string]any{"name": "Matrix OAuth client 2"})}
	rules["DELETE /oauth-clients/{cid}"] = rule{targets: []target{{one, siteOnly}}, last: lastDelete}
}

// oauthEndpointRules: the authorization server's endpoints at the root
// of the site authenticate clients, not callers' keys, so every role is
// alike: a request without the protocol's parameters is a 400 (an error
// page, or RFC 6749's JSON error), the metadata is public.
func oauthEndpointRules(rules map[string]rule) {
	bad := []int{http.StatusBadRequest}
	for _, k := range []string{"GET /o/authorize", "POST /o/authorize", "POST /o/token", "POST /o/revoke_token"} {
		_, path, _ := strings.Cut(k, " ")
		rules[k] = rule{plain: true, ok: bad, targets: []target{{"{origin}" + path + "/", anyone}}}
	}
	rules["GET /.well-known/oauth-authorization-server"] = rule{plain: true,
		targets: []target{{"{origin}/.well-known/oauth-authorization-server", anyone}}}
}
