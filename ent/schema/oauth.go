package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OAuthClient is an application registered by a site administrator to
// sign users in through Geopub's OAuth 2.0 authorization server
// (internal/oauthserver).
type OAuthClient struct {
	ent.Schema
}

// Mixin of the OAuthClient.
func (OAuthClient) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the OAuthClient.
func (OAuthClient) Fields() []ent.Field {
	return []ent.Field{
		field.String("client_id").NotEmpty().Unique().Immutable().Comment("The public identifier clients send."),
		field.String("name").NotEmpty().MaxLen(200),
		field.Bool("confidential").Default(false).Comment("Whether the client holds a secret; public clients must use PKCE."),
		field.String("secret_hash").Default("").Sensitive().Comment("SHA-256 of the client secret, hex; empty for public clients."),
		field.JSON("redirect_uris", []string{}).Comment("Registered redirect URIs, matched exactly (loopback ones on any port)."),
		field.String("scope").Default("").Comment("Space-delimited OAuth scopes the client may ask for."),
		field.Int("created_by").Optional().Nillable().Comment("The site administrator who registered it."),
	}
}

// Annotations of the OAuthClient.
func (OAuthClient) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// OAuthGrant is one authorization a user gave a client: its code (one
// use), the scope consented to, and the family of refresh tokens and
// access tokens issued from it. Revoking the grant ends them all.
type OAuthGrant struct {
	ent.Schema
}

// Fields of the OAuthGrant.
func (OAuthGrant) Fields() []ent.Field {
	return []ent.Field{
		field.Int("client_id").Comment("The OAuthClient row."),
		field.Int("user_id"),
		field.String("scope").Comment("Space-delimited OAuth scopes granted."),
		field.String("code_hash").Sensitive().Unique().NotEmpty(),
		field.String("code_challenge").Default(""),
		field.String("redirect_uri").Default("").Comment("The redirect_uri of the authorization request, empty when it named none."),
		field.Time("code_expires_at"),
		field.Time("code_used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
		field.Time("created_at").Default(nowUTC).Immutable(),
	}
}

// Indexes of the OAuthGrant.
func (OAuthGrant) Indexes() []ent.Index {
	return []ent.Index{index.Fields("client_id"), index.Fields("user_id")}
}

// Annotations of the OAuthGrant.
func (OAuthGrant) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// OAuthRefreshToken is one refresh token of a grant. Using it rotates it:
// it is marked rotated and a new one issued; presenting a rotated one
// again revokes the grant (RFC 9700 §4.14.2).
type OAuthRefreshToken struct {
	ent.Schema
}

// Fields of the OAuthRefreshToken.
func (OAuthRefreshToken) Fields() []ent.Field {
	return []ent.Field{
		field.Int("grant_id"),
		field.String("token_hash").Sensitive().Unique().NotEmpty(),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("expires_at"),
		field.Time("rotated_at").Optional().Nillable(),
	}
}

// Indexes of the OAuthRefreshToken.
func (OAuthRefreshToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("grant_id")}
}

// Annotations of the OAuthRefreshToken.
func (OAuthRefreshToken) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
