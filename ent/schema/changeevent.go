package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ChangeEvent is one entry of the catalogue's change feed
// (internal/changefeed): something that happened to a dataset, in the
// order it committed. Events are appended, never changed, and outlive
// the datasets they describe.
type ChangeEvent struct {
	ent.Schema
}

// Fields of the ChangeEvent.
func (ChangeEvent) Fields() []ent.Field {
	return []ent.Field{
		field.String("type").NotEmpty().Immutable().
			Comment("What happened: dataset.published, dataset.new_version, dataset.schema_changed, dataset.permissions_changed or dataset.deleted."),
		field.String("dataset_kind").NotEmpty().Immutable().
			Comment("The dataset's kind as permissions name it: layer (layers and tables), set, document, catalog_item."),
		field.String("dataset_type").NotEmpty().Immutable().
			Comment("The dataset's type as the API names it: layer, table, set, document, item."),
		field.Int("dataset_id").Immutable(),
		field.String("title").Default("").Immutable().
			Comment("The dataset's title when the event happened."),
		field.Int("version_id").Optional().Nillable().Immutable(),
		field.Int("previous_version_id").Optional().Nillable().Immutable(),
		field.Bool("public").Default(false).Immutable().
			Comment("Whether everyone could view the dataset when it was deleted: who may read a deletion once the dataset's grants are gone."),
		field.JSON("detail", map[string]any{}).Optional().Immutable().
			Comment("What the type adds: a new version's diff counts and schema changes."),
		field.Time("created_at").Default(nowUTC).Immutable(),
	}
}

// Indexes of the ChangeEvent.
func (ChangeEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("dataset_kind", "dataset_id", "id")}
}

// Annotations of the ChangeEvent.
func (ChangeEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
