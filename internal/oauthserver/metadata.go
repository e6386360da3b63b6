package oauthserver

// The paths of the endpoints, at the root of the site.
const (
	AuthorizePath = "/o/authorize/"
	TokenPath     = "/o/token/"
	RevokePath    = "/o/revoke_token/"
	MetadataPath  = "/.well-known/oauth-authorization-server"
)

// Metadata is the authorization server's metadata document (RFC 8414 §2).
type Metadata struct {
	Issuer                                 string   `json:"issuer"`
	AuthorizationEndpoint                  string   `json:"authorization_endpoint"`
	TokenEndpoint                          string   `json:"token_endpoint"`
	RevocationEndpoint                     string   `json:"revocation_endpoint"`
	ScopesSupported                        []string `json:"scopes_supported"`
	ResponseTypesSupported                 []string `json:"response_types_supported"`
	ResponseModesSupported                 []string `json:"response_modes_supported"`
	GrantTypesSupported                    []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported      []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethodsSupported []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported          []string `json:"code_challenge_methods_supported"`
	ServiceDocumentation                   string   `json:"service_documentation,omitempty"`
}

// MetadataFor is the metadata of the server whose issuer identifier is
// origin (https://data.example.com, no path).
func MetadataFor(origin string) Metadata {
	auths := []string{"client_secret_basic", "client_secret_post", "none"}
	return Metadata{
		Issuer:                                 origin,
		AuthorizationEndpoint:                  origin + AuthorizePath,
		TokenEndpoint:                          origin + TokenPath,
		RevocationEndpoint:                     origin + RevokePath,
		ScopesSupported:                        SupportedScopes(),
		ResponseTypesSupported:                 []string{"code"},
		ResponseModesSupported:                 []string{"query"},
		GrantTypesSupported:                    []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:      auths,
		RevocationEndpointAuthMethodsSupported: auths,
		CodeChallengeMethodsSupported:          []string{"S256"},
	}
}
