package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// RateLimitCounter is the shared count of one rate-limit bucket (a route
// class and a token, user or client address) in one fixed window. Every
// serving process adds its requests in batches (internal/ratelimit), so
// the processes sharing the database share the quota; windows past their
// end are deleted.
type RateLimitCounter struct {
	ent.Schema
}

// Fields of the RateLimitCounter.
func (RateLimitCounter) Fields() []ent.Field {
	return []ent.Field{
		// bucket is "class:kind:id", e.g. "reads:t:42" (token 42),
		// "tiles:u:7" (user 7's sessions), "search:a:203.0.113.9".
		field.String("bucket").NotEmpty(),
		// window_start and window_end are Unix seconds.
		field.Int64("window_start"),
		field.Int64("window_end"),
		field.Int64("hits").Default(0),
	}
}

// Indexes of the RateLimitCounter.
func (RateLimitCounter) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("bucket", "window_start").Unique(),
		index.Fields("window_end"),
	}
}

// Annotations of the RateLimitCounter.
func (RateLimitCounter) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
