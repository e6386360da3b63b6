package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// DatasetPermission grants one permission level on one dataset (a layer or
// table, a set, a document or a catalog item) or one source to a user, a group, the site
// administrators or everyone, anonymous callers included.
type DatasetPermission struct {
	ent.Schema
}

// Mixin of the DatasetPermission.
func (DatasetPermission) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the DatasetPermission.
func (DatasetPermission) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("dataset_kind").Values("layer", "set", "document", "catalog_item", "source").
			Comment("The kind of dataset; layers and tables are both `layer`. Sources take the same levels."),
		field.Int("dataset_id"),
		field.Enum("subject").Values("user", "group", "everyone", "administrators").
			Comment("Who holds the permission."),
		field.Int("subject_id").Default(0).
			Comment("The user or group id; 0 for everyone and administrators."),
		field.Enum("permission").Values("view", "download", "edit", "admin").
			Comment("Ordered levels, each including the ones before it: view < download < edit < admin."),
	}
}

// Indexes of the DatasetPermission: one grant per subject and dataset.
func (DatasetPermission) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("dataset_kind", "dataset_id", "subject", "subject_id").Unique(),
		index.Fields("dataset_kind", "subject", "subject_id"),
	}
}

// Annotations of the DatasetPermission: GraphQL reads it through the
// datasets' permissions fields, never as a connection of its own.
func (DatasetPermission) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField)}
}
