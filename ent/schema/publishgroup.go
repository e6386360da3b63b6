package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// PublishGroup publishes one or more dataset versions (layers, tables and
// sets), as a durable job that waits for their imports to finish.
type PublishGroup struct {
	ent.Schema
}

// Fields of the PublishGroup.
func (PublishGroup) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("state").Values("publishing", "completed", "failed", "cancelled").Default("publishing"),
		field.Enum("publish_strategy").Values("together", "individual").Default("together"),
		field.Enum("error_strategy").Values("abort", "ignore").Default("abort"),
		field.Time("publish_at").Optional().Nillable(),
		field.String("reference").Default(""),
		field.JSON("version_ids", []int{}).Comment("The layer versions to publish."),
		field.JSON("set_versions", []int{}).Optional().Comment("The set versions to publish: ready at once, they publish with the layer versions."),
		field.String("error").Default(""),
		field.Int("created_by"),
		field.Int64("job_id").Optional().Nillable().Annotations(entgql.Skip(entgql.SkipAll)),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("completed_at").Optional().Nillable(),
	}
}

// Annotations of the PublishGroup.
func (PublishGroup) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
