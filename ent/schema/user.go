package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// User is a person with an account on the site.
type User struct {
	ent.Schema
}

// Mixin of the User.
func (User) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("email").
			NotEmpty().
			MaxLen(254).
			Unique().
			Comment("Login name and contact address; stored lower-cased.").
			Annotations(entgql.OrderField("EMAIL")),
		field.String("password_hash").
			Sensitive().
			Default("").
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.String("first_name").MaxLen(150).Default(""),
		field.String("last_name").MaxLen(150).Default("").
			Annotations(entgql.OrderField("LAST_NAME")),
		field.String("country").MaxLen(2).Default("").
			Comment("ISO 3166-1 alpha-2 country code, upper case, or empty."),
		field.Bool("is_locked").Default(false).
			Comment("A locked user cannot sign in or use tokens."),
		field.Bool("is_site_admin").Default(false),
		field.Enum("seat_type").Values("paid", "none").Default("none"),
		field.Bool("mfa_enabled").Default(false).
			Comment("The user signs in with a second factor (security filter `mfa`)."),
		field.Bool("remote_auth").Default(false).
			Comment("The user signs in through a remote identity provider (security filter `remote_auth`)."),
		field.Bool("email_verified").Default(false).
			Comment("The user's e-mail address is verified (security filter `verified`)."),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("memberships", GroupMembership.Type).
			Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("tokens", Token.Type).
			Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("sessions", Session.Type).
			Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("access_requests", AccessRequest.Type).
			Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("notifications", Notification.Type).
			Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("sources", Source.Type).
			Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Annotations of the User.
func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entgql.QueryField(),
	}
}
