package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Layer is a versioned dataset of features: a layer (with geometry) or a
// table (without). Users see its published version; publishers edit its
// draft.
type Layer struct {
	ent.Schema
}

// Mixin of the Layer.
func (Layer) Mixin() []ent.Mixin {
	return []ent.Mixin{TimeMixin{}, DatasetMixin{Noun: "layer", Counts: true}, DeprecationMixin{}}
}

// Fields of the Layer.
func (Layer) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("type").Values("layer", "table"),
		field.Enum("kind").Values("vector", "raster", "grid").Default("vector"),
		field.String("name").NotEmpty().MaxLen(500).
			Comment("The name of the published version, or of the first draft until one is published.").
			Annotations(entgql.OrderField("NAME")),
		field.Bool("autoupdate").Default(false).
			Comment("Re-import and publish when a scan finds the layer's datasources changed."),
		field.String("autoupdate_schedule").Default("").
			Comment("Cron-like schedule of the scans that look for changes; required with autoupdate."),
		field.Time("next_autoupdate_at").Optional().Nillable().
			Comment("When autoupdate_schedule next scans the layer's sources."),
	}
}

// Edges of the Layer.
func (Layer) Edges() []ent.Edge {
	return []ent.Edge{
		// Versions are read through the layer's version fields, which hide
		// drafts from those who may not edit.
		edge.To("versions", LayerVersion.Type).Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Annotations of the Layer.
func (Layer) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
