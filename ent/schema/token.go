package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Token is an API token. Only a hash of its key is stored; the key itself is
// shown once, in the creation response.
type Token struct {
	ent.Schema
}

// Fields of the Token.
func (Token) Fields() []ent.Field {
	return []ent.Field{
		field.Int("user_id"),
		field.String("name").MaxLen(200).Default(""),
		field.String("key_hash").Sensitive().Unique().NotEmpty(),
		field.String("key_hint").NotEmpty(),
		field.String("scope").Default("").
			Comment("Space-delimited scope names."),
		field.Strings("referrers").Optional().
			Comment("Allowed referrer hosts: an explicit host or a leading-wildcard pattern such as *.example.com."),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("expires_at").Optional().Nillable(),
		field.Time("last_used_at").Optional().Nillable(),
		field.Int("oauth_grant_id").Optional().Nillable().
			Comment("The OAuth grant it was issued under (an access token, or a key made with one); revoking the grant deletes it."),
	}
}

// Edges of the Token.
func (Token) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("tokens").Field("user_id").Unique().Required(),
	}
}

// Indexes of the Token.
func (Token) Indexes() []ent.Index {
	return []ent.Index{index.Fields("oauth_grant_id")}
}

// Annotations of the Token.
func (Token) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
