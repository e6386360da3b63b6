package schema

import (
	"context"
	"errors"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ErrAuditAppendOnly is what any update or delete of an audit entry
// returns: the audit log is append-only (internal/audit).
var ErrAuditAppendOnly = errors.New("audit entries are append-only: they cannot be changed or deleted")

// AuditEntry is one entry of the audit log (internal/audit): who changed
// what, when, from where. Entries are only ever created; a hook here and
// database triggers (the audit_append_only migration) refuse updates and
// deletes. Actor and target ids are plain columns, not edges, so entries
// outlive the users and objects they name.
type AuditEntry struct {
	ent.Schema
}

// Fields of the AuditEntry.
func (AuditEntry) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.String("actor_kind").NotEmpty().Immutable().
			Comment("How the actor acted: session, token, anonymous (signing in), system, oauth_client or identity_provider."),
		field.Int("actor_user_id").Optional().Nillable().Immutable(),
		field.String("actor_label").Default("").Immutable().
			Comment("The actor's user name when the entry was written."),
		field.Int("actor_session_id").Optional().Nillable().Immutable(),
		field.Int("actor_token_id").Optional().Nillable().Immutable(),
		field.String("action").NotEmpty().MaxLen(100).Immutable().
			Comment("Dotted name of what was done, such as permission.grant or token.create."),
		field.String("target_type").NotEmpty().MaxLen(50).Immutable(),
		field.String("target_id").Default("").MaxLen(100).Immutable(),
		field.String("target_label").Default("").MaxLen(500).Immutable(),
		field.JSON("before", map[string]any{}).Optional().Immutable(),
		field.JSON("after", map[string]any{}).Optional().Immutable(),
		field.String("client_addr").Default("").MaxLen(100).Immutable(),
		field.String("group_ids").Default("").Immutable().
			Comment("The groups the entry concerns, as ,3,7, (leading and trailing commas), so group admins' reads match ,ID, ."),
	}
}

// Indexes of the AuditEntry.
func (AuditEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("created_at"),
		index.Fields("actor_user_id", "id"),
		index.Fields("target_type", "target_id", "id"),
		index.Fields("action", "id"),
	}
}

// Hooks of the AuditEntry: only creation is allowed.
func (AuditEntry) Hooks() []ent.Hook {
	return []ent.Hook{refuseAuditChanges}
}

func refuseAuditChanges(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if !m.Op().Is(ent.OpCreate) {
			return nil, ErrAuditAppendOnly
		}
		return next.Mutate(ctx, m)
	})
}

// Annotations of the AuditEntry.
func (AuditEntry) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
