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

// SetVersion is one version of a set: its title, description and ordered
// members. A set has at most one draft; the published version cannot
// change.
type SetVersion struct {
	ent.Schema
}

// Mixin of the SetVersion.
func (SetVersion) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the SetVersion.
func (SetVersion) Fields() []ent.Field {
	return []ent.Field{
		field.Int("set_id"),
		field.Enum("state").Values("draft", "published", "superseded", "deleted").Default("draft").
			Comment("draft until published; superseded when a newer version is published; deleted when a draft is discarded."),
		field.String("title").NotEmpty().MaxLen(500),
		field.Text("description").Default(""),
		field.Int("created_by").Comment("User id of the creator."),
		field.Strings("tags").Optional().Comment("Free-text tags, trimmed, without repeats."),
		field.Strings("categories").Optional().Comment("Keys of categories (Category.key)."),
		field.Int("license_id").Optional().Nillable().Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The licence the version is published under; read through the license field."),
		field.Time("published_at").Optional().Nillable(),
	}
}

// Edges of the SetVersion.
func (SetVersion) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("set", Set.Type).Ref("versions").Field("set_id").Unique().Required(),
		edge.From("license", License.Type).Ref("set_versions").Field("license_id").Unique().
			Annotations(entgql.Skip(entgql.SkipAll)),
		// Exposed through the hand-written items field, which lists only
		// the members the caller may see.
		edge.To("items", SetItem.Type).Annotations(entgql.Skip(entgql.SkipAll), entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the SetVersion.
func (SetVersion) Indexes() []ent.Index {
	return []ent.Index{index.Fields("set_id", "state")}
}

// Annotations of the SetVersion.
func (SetVersion) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
