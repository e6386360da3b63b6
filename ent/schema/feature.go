package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Feature is one imported row of a layer version: its attributes, its
// geometry in EPSG:4326 as WKB, and its bounding box for spatial lookups.
// Package features reads and writes this table in bulk.
type Feature struct {
	ent.Schema
}

// Fields of the Feature.
func (Feature) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id"),
		field.Int("version_id"),
		field.Int64("fid").Comment("The feature's id in its datasource."),
		field.Bytes("geom").Optional().Nillable().Comment("ISO WKB in EPSG:4326; null without geometry."),
		field.JSON("attrs", map[string]any{}).Optional(),
		field.Float("minx").Optional().Nillable(),
		field.Float("miny").Optional().Nillable(),
		field.Float("maxx").Optional().Nillable(),
		field.Float("maxy").Optional().Nillable(),
	}
}

// Indexes of the Feature.
func (Feature) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("version_id", "fid"),
		// Box lookups use the spatial index of the hand-written
		// migrations (SQLite R*Tree features_rtree, PostgreSQL GiST
		// features_version_box; see internal/features.BoxWhere).
	}
}

// Annotations of the Feature.
func (Feature) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
