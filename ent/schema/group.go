package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Group is a publishing organisation unit: it owns data and has members
// holding group permissions.
type Group struct {
	ent.Schema
}

// Mixin of the Group.
func (Group) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Group.
func (Group) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(200).
			Annotations(entgql.OrderField("NAME")),
		field.String("url_slug").NotEmpty().MaxLen(200).Unique().
			Comment("Human-readable slug, unique on the site."),
		field.String("country").MaxLen(2).Default("").
			Comment("ISO 3166-1 alpha-2 country code, upper case."),
		field.Enum("data_owner").Values("site", "group").Default("group").
			Comment("Who owns the group's data: the site or the group."),
		field.Bool("access_requests_enabled").Default(false).
			Comment("Whether site members may request access."),
		field.Bool("catalog_feeds_enabled").Default(true).
			Comment("Whether the group's data appears in public data feeds."),
		field.Enum("type").Values("normal", "members").Default("normal").
			Comment("`normal` for ordinary groups (the site default group too); `members` for the organisation members group."),
		field.Bool("is_default").Default(false).
			Comment("True for the site default group only."),
	}
}

// Edges of the Group.
func (Group) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("memberships", GroupMembership.Type).
			Annotations(
				entgql.Skip(entgql.SkipAll),
				entgql.OrderField("MEMBERS_COUNT"),
			),
		edge.To("access_requests", AccessRequest.Type).
			Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("sources", Source.Type).
			Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Annotations of the Group.
func (Group) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entgql.QueryField(),
	}
}
