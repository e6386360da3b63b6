package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// LoginThrottle counts recent failed password checks for one key (an e-mail
// address or a client address), so repeated wrong passwords are slowed down
// across every server process sharing the database.
type LoginThrottle struct {
	ent.Schema
}

// Fields of the LoginThrottle.
func (LoginThrottle) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").NotEmpty().Unique(),
		field.Int("failures").Default(0),
		field.Time("window_start"),
		field.Time("blocked_until").Optional().Nillable(),
	}
}

// Annotations of the LoginThrottle.
func (LoginThrottle) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
