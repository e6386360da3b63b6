package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// UsageDay holds one day's usage figures (UTC) of one dataset through one
// data service by one API token (0: no token). Rows only grow: every
// process adds its counts with an additive upsert (internal/usage), so
// the figures of several replicas add up. Figures outlive the datasets and
// tokens they name, which are plain ids, not edges.
type UsageDay struct {
	ent.Schema
}

// Fields of the UsageDay.
func (UsageDay) Fields() []ent.Field {
	return []ent.Field{
		// day is the UTC date, YYYY-MM-DD, which sorts as dates do.
		field.String("day").MaxLen(10).Immutable(),
		field.Enum("dataset_kind").Values("layer", "set", "document", "catalog_item").Immutable(),
		field.Int("dataset_id").Immutable(),
		field.String("service").MaxLen(40).Immutable(),
		field.Int("token_id").Default(0).Immutable(),
		field.Int64("requests").Default(0),
		field.Int64("bytes").Default(0),
		field.Int64("features").Default(0),
		field.Int64("tiles").Default(0),
		field.Int64("exports").Default(0),
		field.Int64("downloads").Default(0),
	}
}

// Indexes of the UsageDay.
func (UsageDay) Indexes() []ent.Index {
	return []ent.Index{
		// The upsert's conflict target, and the dataset's reads by day.
		index.Fields("dataset_kind", "dataset_id", "day", "service", "token_id").Unique(),
		index.Fields("token_id", "day"),
	}
}

// Annotations of the UsageDay.
func (UsageDay) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
