package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Session is a cookie session of a signed-in user. Only a hash of the
// cookie value is stored.
type Session struct {
	ent.Schema
}

// Fields of the Session.
func (Session) Fields() []ent.Field {
	return []ent.Field{
		field.Int("user_id"),
		field.String("token_hash").Sensitive().Unique().NotEmpty(),
		field.String("csrf_token").Sensitive().NotEmpty(),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("expires_at"),
		field.Time("last_seen_at").Optional().Nillable().
			Comment("When a request last used the session, rewritten at most once a minute."),
		field.String("client_addr").MaxLen(64).Default("").
			Comment("The client address the session was started from."),
		field.String("user_agent").MaxLen(512).Default("").
			Comment("The User-Agent the session was started with, cut to 512 bytes."),
	}
}

// Edges of the Session.
func (Session) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("sessions").Field("user_id").Unique().Required(),
	}
}

// Annotations of the Session.
func (Session) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
