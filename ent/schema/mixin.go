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
