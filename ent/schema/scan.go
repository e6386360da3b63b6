package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/geopub/geopub/ent/schema/schematype"
)

// Scan is one inspection of a source, run as a durable job.
type Scan struct {
	ent.Schema
}

// Fields of the Scan.
func (Scan) Fields() []ent.Field {
	return []ent.Field{
		field.Int("source_id"),
		field.Enum("status").
			Values("queued", "scanning", "completed", "failed", "cancelled").
			Default("queued"),
		field.Float("progress").Default(0),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("started_at").Optional().Nillable(),
		field.Time("completed_at").Optional().Nillable(),
		field.Int("added").Default(0).Comment("Datasources found new."),
		field.Int("updated").Default(0).Comment("Datasources whose description changed."),
		field.Int("deleted").Default(0).Comment("Datasources no longer found."),
		field.Text("log").Default("").
			Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("One event per line: YYYY-MM-DD HH:MM:SS: message."),
		field.String("error").Default("").Comment("Why the scan failed."),
		field.JSON("skipped", []schematype.Skipped{}).Optional().
			Annotations(entgql.Type("[ScanSkipped!]")).
			Comment("Files the scan found but did not describe, and why."),
		field.Int64("job_id").Optional().Nillable().
			Annotations(entgql.Skip(entgql.SkipAll)),
		field.Int("user_id").Comment("Who started the scan; notified when it ends."),
	}
}

// Edges of the Scan.
func (Scan) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("source", Source.Type).Ref("scans").Field("source_id").Unique().Required(),
	}
}

// Indexes of the Scan.
func (Scan) Indexes() []ent.Index {
	return []ent.Index{index.Fields("source_id", "id")}
}

// Annotations of the Scan.
func (Scan) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
