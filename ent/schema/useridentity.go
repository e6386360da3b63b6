package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// UserIdentity links a user to an account at an OpenID Connect provider:
// the provider's name in the operator's configuration and the subject
// (`sub`) the provider knows the user by.
type UserIdentity struct {
	ent.Schema
}

// Fields of the UserIdentity.
func (UserIdentity) Fields() []ent.Field {
	return []ent.Field{
		field.Int("user_id"),
		field.String("provider").NotEmpty().MaxLen(64).
			Comment("The provider's name in the operator's OIDC configuration."),
		field.String("subject").NotEmpty().MaxLen(255).
			Comment("The provider's `sub` claim: stable and unique at that provider."),
		field.String("email").MaxLen(254).Default("").
			Comment("The e-mail address the provider last gave."),
		field.JSON("granted_groups", []int{}).Optional().
			Comment("Groups whose membership the provider's groups claim gave the user; only these are removed when the claim drops them."),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("last_sign_in_at").Default(nowUTC),
	}
}

// Edges of the UserIdentity.
func (UserIdentity) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("user", User.Type).Field("user_id").Unique().Required().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the UserIdentity: one link per account at a provider.
func (UserIdentity) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("provider", "subject").Unique(),
		index.Fields("user_id"),
	}
}

// Annotations of the UserIdentity.
func (UserIdentity) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
