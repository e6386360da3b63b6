package graph_test

import (
	"fmt"
	"testing"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/oauthserver"
)

// oauthMatrixClient registers an OAuth client as the site administrator
// and returns its id.
func oauthMatrixClient(t *testing.T, f *gqlFixtures) int {
	t.Helper()
	ctx := auth.WithPrincipal(t.Context(), auth.Principal{Method: auth.SessionAuth, User: f.users["siteadmin"].User})
	c, err := f.e.Server.Resolver.OAuth.CreateClient(ctx, oauthserver.ClientSpec{Name: "Matrix OAuth client", RedirectURIs: []string{"http://127.0.0.1/"}})
	if err != nil {
		t.Fatal(err)
	}
	return c.Client.ID
}

// addOAuthClient is the fixture client the read matrix lists.
func (f *gqlFixtures) addOAuthClient(t *testing.T) { f.vars["oauthclient"] = oauthMatrixClient(t, f) }

// oauthRootVariants: the clients' registry, which only site
// administrators read (GET /oauth-clients/{id}/ is the oracle).
func oauthRootVariants(f *gqlFixtures, add func(root, name string, args map[string]any, parent map[string]any)) {
	add("oauthClients", "all", map[string]any{}, nil)
	add("oauthClient", "matrix", map[string]any{"id": f.vars["oauthclient"]}, nil)
}

// oauthMutationCases: registering, changing and deleting clients is the
// site administrators' (GET /oauth-clients/).
func oauthMutationCases(t *testing.T, cases map[string]mutationCase) {
	cases["createOAuthClient"] = mutationCase{op: `mutation { createOAuthClient(input: {name: "Matrix new", redirectUris: ["http://127.0.0.1/"]}) { client { id } clientSecret } }`,
		targets: func(*gqlFixtures) []writeTarget {
			return []writeTarget{{name: "new", vars: map[string]any{}, need: "/oauth-clients/"}}
		}}
	cases["updateOAuthClient"] = mutationCase{op: `mutation($id: ID!) { updateOAuthClient(id: $id, input: {name: "Matrix renamed"}) { id } }`,
		targets: func(f *gqlFixtures) []writeTarget {
			return []writeTarget{{name: "matrix", vars: map[string]any{"id": f.vars["oauthclient"]}, need: fmt.Sprintf("/oauth-clients/%v/", f.vars["oauthclient"])}}
		}}
	cases["deleteOAuthClient"] = mutationCase{op: `mutation($id: ID!) { deleteOAuthClient(id: $id) }`,
		targets: func(f *gqlFixtures) []writeTarget {
			id := oauthMatrixClient(t, f)
			return []writeTarget{{name: "fresh", vars: map[string]any{"id": id}, need: fmt.Sprintf("/oauth-clients/%v/", id)}}
		}}
}
