package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// DatasetFollow is a user's choice to receive, or not, a dataset's change
// events in their notification stream (internal/follows). A star follows
// too, unless a row says not to.
type DatasetFollow struct {
	ent.Schema
}

// Fields of the DatasetFollow.
func (DatasetFollow) Fields() []ent.Field {
	return []ent.Field{
		field.Int("user_id"),
		field.Enum("dataset_type").Values("layer", "table", "set", "document", "item").
			Comment("The dataset's type as the API names it."),
		field.Int("dataset_id"),
		field.Bool("following").Comment("True: followed explicitly; false: unfollowed, though starred."),
		field.Time("created_at").Default(nowUTC),
	}
}

// Indexes of the DatasetFollow.
func (DatasetFollow) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "dataset_type", "dataset_id").Unique(),
		index.Fields("dataset_type", "dataset_id"),
	}
}

// Annotations of the DatasetFollow.
func (DatasetFollow) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
