package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// DatasetMark is a consumer's star or pin on a dataset: one row per user,
// dataset and kind of mark.
type DatasetMark struct {
	ent.Schema
}

// Fields of the DatasetMark.
func (DatasetMark) Fields() []ent.Field {
	return []ent.Field{
		field.String("dataset_kind").NotEmpty().Comment("item for catalog items; other kinds may use it too."),
		field.Int("dataset_id"),
		field.Int("user_id"),
		field.Enum("kind").Values("star", "pin"),
		field.Time("created_at").Default(nowUTC).Immutable(),
	}
}

// Indexes of the DatasetMark.
func (DatasetMark) Indexes() []ent.Index {
	return []ent.Index{index.Fields("dataset_kind", "dataset_id", "user_id", "kind").Unique()}
}

// Annotations of the DatasetMark.
func (DatasetMark) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// DatasetAccessRequest is a user's request for access to a dataset, for
// its administrators to answer.
type DatasetAccessRequest struct {
	ent.Schema
}

// Mixin of the DatasetAccessRequest.
func (DatasetAccessRequest) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the DatasetAccessRequest.
func (DatasetAccessRequest) Fields() []ent.Field {
	return []ent.Field{
		field.String("dataset_kind").NotEmpty().Comment("item for catalog items; other kinds may use it too."),
		field.Int("dataset_id"),
		field.Int("user_id"),
		field.Enum("status").Values("outstanding", "approved", "declined", "revoked").Default("outstanding").
			Comment("outstanding until approved or declined by an administrator of the dataset, or revoked by the requester."),
		field.Time("closed_at").Optional().Nillable(),
	}
}

// Indexes of the DatasetAccessRequest.
func (DatasetAccessRequest) Indexes() []ent.Index {
	return []ent.Index{index.Fields("dataset_kind", "dataset_id", "user_id", "status")}
}

// Annotations of the DatasetAccessRequest.
func (DatasetAccessRequest) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField)}
}
