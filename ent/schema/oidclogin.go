package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OIDCLogin is one OpenID Connect sign-in under way: made when the browser
// leaves for the provider, deleted when it comes back (one use) or when it
// expires. Only hashes of the state and of the browser's binding cookie
// are stored.
type OIDCLogin struct {
	ent.Schema
}

// Fields of the OIDCLogin.
func (OIDCLogin) Fields() []ent.Field {
	return []ent.Field{
		field.String("state_hash").NotEmpty().Unique().Sensitive(),
		field.String("binding_hash").NotEmpty().Sensitive(),
		field.String("provider").NotEmpty().MaxLen(64),
		field.String("nonce").NotEmpty().Sensitive(),
		field.String("code_verifier").NotEmpty().Sensitive(),
		field.String("redirect_uri").NotEmpty().MaxLen(2048),
		field.String("next").MaxLen(2048).Default("/"),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("expires_at"),
	}
}

// Indexes of the OIDCLogin: expired rows are swept by time.
func (OIDCLogin) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}

// Annotations of the OIDCLogin.
func (OIDCLogin) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
