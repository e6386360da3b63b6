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
func (Set) Mixin() []ent.Mixin {
	return []ent.Mixin{TimeMixin{}, DatasetMixin{Noun: "set", Counts: true}, DeprecationMixin{}}
}

// Fields of the Set.
func (Set) Fields() []ent.Field {
	return []ent.Field{
		field.String("title").NotEmpty().MaxLen(500).
			Comment("The title of the published version, or of the first draft until one is published.").
			Annotations(entgql.OrderField("TITLE")),
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
