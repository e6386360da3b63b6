package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CropLayer is a published polygon layer a site administrator offers as
// crop areas for exports: users pick one of its features (named by
// name_field) as an export's extent. Its features are read from the
// layer's published version (internal/croplayers).
type CropLayer struct {
	ent.Schema
}

// Fields of the CropLayer.
func (CropLayer) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(500),
		field.Int("layer_id").Comment("The vector layer whose published version holds the crop features."),
		field.String("name_field").NotEmpty().MaxLen(255).Comment("The attribute that names each crop feature."),
		field.Time("created_at").Default(nowUTC).Immutable(),
	}
}

// Indexes of the CropLayer.
func (CropLayer) Indexes() []ent.Index {
	return []ent.Index{index.Fields("layer_id")}
}

// Annotations of the CropLayer: its GraphQL type is written by hand
// (schema/croplayers.graphql).
func (CropLayer) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
