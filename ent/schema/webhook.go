package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WebhookEndpoint is a URL that receives the change feed's events as
// Standard Webhooks (internal/webhooks), owned by a user or by a group
// whose administrators manage it.
type WebhookEndpoint struct {
	ent.Schema
}

// Mixin of the WebhookEndpoint.
func (WebhookEndpoint) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the WebhookEndpoint.
func (WebhookEndpoint) Fields() []ent.Field {
	return []ent.Field{
		field.Int("user_id").Comment("The user who made it, whose access decides what it receives when no group owns it."),
		field.Int("group_id").Optional().Nillable().Comment("The owning group: its administrators manage it, and it receives what the group's members may see as a group."),
		field.String("url").NotEmpty().MaxLen(2000),
		field.String("description").Default("").MaxLen(500),
		field.JSON("event_types", []string{}).Optional().Comment("The event types it receives; none for all."),
		field.JSON("datasets", []string{}).Optional().Comment("The datasets it receives events of, as kind:id (layer:5); none for all the owner may see."),
		field.String("secret").Sensitive().Comment("The signing secret (whsec_…), sealed."),
		field.String("previous_secret").Default("").Sensitive().Comment("The secret before the last rotation, sealed; signs too until previous_secret_expires_at."),
		field.Time("previous_secret_expires_at").Optional().Nillable(),
		field.Bool("enabled").Default(true),
		field.String("disabled_reason").Default(""),
		field.Time("failing_since").Optional().Nillable().Comment("When its deliveries began to fail for good, with none delivered since; it is disabled when this is old enough."),
	}
}

// Indexes of the WebhookEndpoint.
func (WebhookEndpoint) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id"), index.Fields("group_id")}
}

// Annotations of the WebhookEndpoint.
func (WebhookEndpoint) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// WebhookDelivery is one event sent, or to be sent, to one endpoint: the
// delivery log.
type WebhookDelivery struct {
	ent.Schema
}

// Fields of the WebhookDelivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.Int("endpoint_id"),
		field.Int("event_id"),
		field.String("message_id").NotEmpty().Immutable().Comment("The webhook-id header: the same on every attempt and redelivery."),
		field.Enum("status").Values("pending", "delivered", "failed", "suppressed", "cancelled").Default("pending").
			Comment("pending until an attempt succeeds (delivered), every attempt failed (failed), the owner may no longer see the event (suppressed) or the endpoint was disabled or deleted (cancelled)."),
		field.Int("attempts").Default(0),
		field.Int("response_status").Optional().Nillable().Comment("The HTTP status of the last attempt's answer."),
		field.String("error").Default("").MaxLen(1000).Comment("Why the last attempt failed."),
		field.Time("last_attempt_at").Optional().Nillable(),
		field.Time("next_attempt_at").Optional().Nillable(),
		field.Time("created_at").Default(nowUTC).Immutable(),
	}
}

// Indexes of the WebhookDelivery.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{index.Fields("endpoint_id", "id"), index.Fields("endpoint_id", "event_id").Unique()}
}

// Annotations of the WebhookDelivery.
func (WebhookDelivery) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
