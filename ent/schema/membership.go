package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// GroupMembership is a group-user permission: the user belongs to the group
// with one permission level.
type GroupMembership struct {
	ent.Schema
}

// Mixin of the GroupMembership.
func (GroupMembership) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the GroupMembership.
func (GroupMembership) Fields() []ent.Field {
	return []ent.Field{
		field.Int("group_id"),
		field.Int("user_id"),
		field.Enum("permission").
			Values("member", "edit_data", "edit_users", "admin").
			Default("member").
			Comment("Ordered levels, each including the ones before it: member < edit_data < edit_users < admin."),
	}
}

// Edges of the GroupMembership.
func (GroupMembership) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("group", Group.Type).Ref("memberships").Field("group_id").Unique().Required(),
		edge.From("user", User.Type).Ref("memberships").Field("user_id").Unique().Required(),
	}
}

// Indexes of the GroupMembership: a user belongs to a group at most once.
func (GroupMembership) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("group_id", "user_id").Unique(),
		index.Fields("user_id"),
	}
}

// Annotations of the GroupMembership.
func (GroupMembership) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
