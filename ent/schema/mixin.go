// Package schema holds the Ent schemas of Geopub's entities: the single
// source of truth for the database tables, the generated Go client and the
// generated GraphQL types.
package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"
)

// TimeMixin adds created_at and updated_at, both orderable in GraphQL.
type TimeMixin struct {
	mixin.Schema
}

// Fields of the TimeMixin.
func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").
			Default(nowUTC).
			Immutable().
			Annotations(entgql.OrderField("CREATED_AT")),
		field.Time("updated_at").
			Default(nowUTC).
			UpdateDefault(nowUTC).
			Annotations(entgql.OrderField("UPDATED_AT")),
	}
}

// nowUTC is the clock every timestamp default uses: the spec's timestamps
// are UTC.
func nowUTC() time.Time { return time.Now().UTC() }

// DatasetMixin adds what the four versioned dataset kinds (layers and
// tables, sets, documents, catalog items) share on their dataset entity:
// the creator and owning group, the published version and when it was
// published first and last, and, for the kinds that count them, views and
// downloads. Noun names the kind in the creator's description ("layer").
type DatasetMixin struct {
	mixin.Schema
	Noun   string
	Counts bool // num_views and num_downloads
}

// Fields of the DatasetMixin.
func (m DatasetMixin) Fields() []ent.Field {
	fields := []ent.Field{
		field.Int("user_id").Comment("The user who created the " + m.Noun + "."),
		field.Int("group_id").Optional().Nillable().Comment("The owning group, if any."),
		field.Int("published_version_id").Optional().Nillable(),
		field.Time("first_published_at").Optional().Nillable(),
		field.Time("published_at").Optional().Nillable(),
	}
	if m.Counts {
		skip := entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)
		fields = append(fields,
			field.Int64("num_views").Default(0).Annotations(skip).
				Comment("Views of the dataset's detail. Counts are written in batches, so a view may take a few seconds to show."),
			field.Int64("num_downloads").Default(0).Annotations(skip).
				Comment("Downloads of the dataset's data. Counts are written in batches, so a download may take a few seconds to show."),
		)
	}
	return fields
}

// DeprecationMixin adds a dataset's deprecation (internal/deprecation):
// when its publisher marked it as no longer to be used, why, and the
// dataset replacing it, if any. GraphQL reads them through the dataset's
// deprecation field, not one by one.
type DeprecationMixin struct {
	mixin.Schema
}

// Fields of the DeprecationMixin.
func (DeprecationMixin) Fields() []ent.Field {
	skip := entgql.Skip(entgql.SkipAll)
	return []ent.Field{
		field.Time("deprecated_at").Optional().Nillable().Annotations(skip).
			Comment("When the dataset was marked deprecated; nil when it is not."),
		field.String("deprecation_reason").Optional().MaxRuneLen(1000).Annotations(skip).
			Comment("Why it is deprecated."),
		field.String("replacement_type").Optional().MaxLen(20).Annotations(skip).
			Comment("The type (layer, table, set, document, item) of the dataset replacing it, if any."),
		field.Int("replacement_id").Optional().Nillable().Annotations(skip).
			Comment("The id of the dataset replacing it, if any."),
	}
}
