package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Feedback is a comment, or a ticket once it has a status, usually about
// one dataset (its ticketed object). Every change after creation is kept
// as a FeedbackRecord.
type Feedback struct {
	ent.Schema
}

// Mixin of the Feedback.
func (Feedback) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Feedback.
func (Feedback) Fields() []ent.Field {
	return []ent.Field{
		field.String("title").Default("").MaxLen(500),
		field.Text("description").NotEmpty(),
		field.String("status").Default("").
			Comment("Blank for a comment; a ticket's state: open, onhold, in-progress, resolved or closed."),
		field.String("sub_status").Default("").MaxLen(200),
		field.String("tags").Default("").MaxLen(1000),
		field.Int("assignee_id").Optional().Nillable(),
		field.String("target_type").Default("").
			Comment("The kind of the ticketed object (layer, table, document, ...); blank when none."),
		field.Int("target_id").Optional().Nillable(),
		field.String("permalink_url").Default("").MaxLen(2000),
		field.Int("created_by").Comment("User id of the author."),
		field.JSON("attachments", []int{}).Optional().Comment("Ids of attached documents."),
	}
}

// Edges of the Feedback.
func (Feedback) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("updates", FeedbackRecord.Type),
	}
}

// Indexes of the Feedback.
func (Feedback) Indexes() []ent.Index {
	return []ent.Index{index.Fields("target_type", "target_id"), index.Fields("created_by")}
}

// Annotations of the Feedback.
func (Feedback) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// FeedbackRecord is one PUT on a feedback item: an optional reply text and
// the properties it changed, from and to.
type FeedbackRecord struct {
	ent.Schema
}

// Fields of the FeedbackRecord.
func (FeedbackRecord) Fields() []ent.Field {
	return []ent.Field{
		field.Int("feedback_id"),
		field.Text("description").Default(""),
		field.JSON("changes", map[string]any{}).
			Comment("Changed property -> {from, to}; empty when nothing changed."),
		field.Bool("is_internal").Default(false).
			Comment("Visible only to the item's administrators."),
		field.JSON("attachments", []int{}).Optional().Comment("Ids of attached documents."),
		field.String("permalink_url").Optional().Nillable(),
		field.Int("created_by"),
		field.Time("created_at").Default(nowUTC).Immutable(),
	}
}

// Edges of the FeedbackRecord.
func (FeedbackRecord) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("feedback", Feedback.Type).Ref("updates").Field("feedback_id").Unique().Required(),
	}
}

// Annotations of the FeedbackRecord.
func (FeedbackRecord) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
