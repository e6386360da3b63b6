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

// SetItem is one member of a set version: a layer or table at a position.
// The foreign key to the layer cascades, so deleting a layer removes it
// from every set version that held it; no member points at nothing.
type SetItem struct {
	ent.Schema
}

// Fields of the SetItem.
func (SetItem) Fields() []ent.Field {
	return []ent.Field{
		field.Int("set_version_id"),
		field.Int("position").NonNegative().Comment("0-based place of the member in its set version."),
		field.Int("layer_id").Comment("The member layer or table."),
	}
}

// Edges of the SetItem.
func (SetItem) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("set_version", SetVersion.Type).Ref("items").Field("set_version_id").Unique().Required(),
		edge.To("layer", Layer.Type).Field("layer_id").Unique().Required().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the SetItem: one member per position and no member twice.
func (SetItem) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("set_version_id", "position").Unique(),
		index.Fields("set_version_id", "layer_id").Unique(),
		index.Fields("layer_id"),
	}
}

// Annotations of the SetItem: not a GraphQL type of its own; members show
// as the layers themselves.
func (SetItem) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
