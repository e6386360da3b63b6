package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Set is a versioned, ordered collection of existing layers and tables
// (never datasources). Users see its published version; publishers edit
// its draft.
type Set struct {
	ent.Schema
}

// Mixin of the Set.
func (Set) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Set.
func (Set) Fields() []ent.Field {
	return []ent.Field{
		field.String("title").NotEmpty().MaxLen(500).
			Comment("The title of the published version, or of the first draft until one is published.").
			Annotations(entgql.OrderField("TITLE")),
		field.Int("user_id").Comment("The user who created the set."),
		field.Int("group_id").Optional().Nillable().Comment("The owning group, if any."),
		field.Int("published_version_id").Optional().Nillable(),
		field.Time("first_published_at").Optional().Nillable(),
		field.Time("published_at").Optional().Nillable(),
		field.Int64("num_views").Default(0).Annotations(entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)).
			Comment("Views of the dataset's detail. Counts are written in batches, so a view may take a few seconds to show."),
		field.Int64("num_downloads").Default(0).Annotations(entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)).
			Comment("Downloads of the dataset's data. Counts are written in batches, so a download may take a few seconds to show."),
	}
}

// Edges of the Set.
func (Set) Edges() []ent.Edge {
	return []ent.Edge{
		// Exposed through the hand-written versions field, which hides
		// drafts from readers.
		edge.To("versions", SetVersion.Type).Annotations(entgql.Skip(entgql.SkipAll), entsql.OnDelete(entsql.Cascade)),
	}
}

// Annotations of the Set.
func (Set) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
