package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// AccessRequest is a user's request to join a group.
type AccessRequest struct {
	ent.Schema
}

// Mixin of the AccessRequest.
func (AccessRequest) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the AccessRequest.
func (AccessRequest) Fields() []ent.Field {
	return []ent.Field{
		field.Int("group_id"),
		field.Int("user_id"),
		field.Enum("status").
			Values("outstanding", "approved", "declined", "revoked").
			Default("outstanding").
			Comment("outstanding until approved, declined by a group admin or revoked by the requester."),
		field.Time("closed_at").Optional().Nillable(),
	}
}

// Edges of the AccessRequest.
func (AccessRequest) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("group", Group.Type).Ref("access_requests").Field("group_id").Unique().Required(),
		edge.From("user", User.Type).Ref("access_requests").Field("user_id").Unique().Required(),
	}
}

// Indexes of the AccessRequest.
func (AccessRequest) Indexes() []ent.Index {
	return []ent.Index{index.Fields("group_id", "user_id", "status")}
}

// Annotations of the AccessRequest.
func (AccessRequest) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
