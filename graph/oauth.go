package graph

import (
	"github.com/geopub/geopub/internal/oauthserver"
)

// oauthClientSpec is a CreateOAuthClientInput as the authorization
// server takes it.
func oauthClientSpec(in CreateOAuthClientInput) oauthserver.ClientSpec {
	spec := oauthserver.ClientSpec{Name: in.Name, RedirectURIs: in.RedirectUris}
	if in.Confidential != nil {
		spec.Confidential = *in.Confidential
	}
	if in.Scope != nil {
		spec.Scope = *in.Scope
	}
	return spec
}

// oauthClientPatch is an UpdateOAuthClientInput as the authorization
// server takes it; absent fields stay.
func oauthClientPatch(in UpdateOAuthClientInput) oauthserver.ClientPatch {
	p := oauthserver.ClientPatch{Name: in.Name, Scope: in.Scope}
	if in.RedirectUris != nil {
		uris := in.RedirectUris
		p.RedirectURIs = &uris
	}
	return p
}

// createdOAuthClient is the answer to createOAuthClient: the secret only
// for a confidential client.
func createdOAuthClient(c *oauthserver.CreatedClient) *CreatedOAuthClient {
	out := &CreatedOAuthClient{Client: c.Client}
	if c.Secret != "" {
		s := c.Secret
		out.ClientSecret = &s
	}
	return out
}

// The read guards of the OAuth clients' fields (fieldguard.go): only
// site administrators reach them, through the authorization server's
// checks.
func init() {
	fieldGuards["Query.oauthClients"] = fieldGuard{rule: ruleRoot}
	fieldGuards["Query.oauthClient"] = fieldGuard{rule: ruleRoot}
	fieldGuards["CreatedOAuthClient.client"] = fieldGuard{rule: "the client its caller, a site administrator, just registered"}
}
