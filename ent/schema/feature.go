package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
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
		field.Int64("cell").Optional().Nillable().Comment("On PostgreSQL, the quadtree cell key of the box, indexed with version_id; null on SQLite, whose R*Tree indexes the boxes."),
	}
}

// Indexes of the Feature.
func (Feature) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("version_id", "fid"),
		// Box lookups (internal/featurerows.BoxWhere): on PostgreSQL this
		// index over the cell keys, with the box columns so that the
		// exact box test runs on the index entries; on SQLite the R*Tree
		// features_rtree of the hand-written migrations (there cell is
		// null, so this index stays empty).
		index.Fields("version_id", "cell", "minx", "maxx", "miny", "maxy").
			Annotations(entsql.IndexWhere("cell IS NOT NULL")),
	}
}

// Annotations of the Feature.
func (Feature) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
