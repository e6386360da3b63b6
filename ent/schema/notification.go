package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Notification is one event addressed to a user, such as an access request
// being approved or declined. Notifications are stored first and fanned out
// afterwards, so a client can always catch up from a cursor.
type Notification struct {
	ent.Schema
}

// Fields of the Notification.
func (Notification) Fields() []ent.Field {
	return []ent.Field{
		field.Int("user_id"),
		field.String("kind").NotEmpty().
			Comment("What happened, such as access_request.approved."),
		field.JSON("payload", map[string]any{}).Optional(),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("read_at").Optional().Nillable(),
	}
}

// Edges of the Notification.
func (Notification) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("notifications").Field("user_id").Unique().Required(),
	}
}

// Indexes of the Notification.
func (Notification) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id", "id")}
}

// Annotations of the Notification.
func (Notification) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
