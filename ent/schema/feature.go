package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
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
		field.Int64("sum").Optional().Nillable().Comment("The row's content sum (internal/featurerows.Sum), which diffs compare; null for rows stored before sums existed."),
	}
}

// The table's indexes, triggers and (on PostgreSQL) partitions are those
// of the hand-written migrations; Ent does not migrate it (Annotations).
// On PostgreSQL: the primary key (version_id, id), a B-tree on
// (version_id, fid), and one on (version_id, cell, minx, maxx, miny, maxy)
// where cell is set, for box lookups (internal/featurerows.BoxWhere); on
// SQLite the same two B-trees beside the primary key id.

// Annotations of the Feature.
func (Feature) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.Skip(entgql.SkipAll),
		// Hand-migrated: on PostgreSQL the table is partitioned by
		// version (migration 20261202040000), which Ent cannot describe.
		entsql.Skip(),
	}
}
