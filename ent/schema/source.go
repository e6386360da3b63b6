package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Source is a container of data: an uploaded archive or file, an archive
// URL, a remote feature or map server, a file share, a database or an
// object-store bucket. Scans inspect it and discover its datasources.
type Source struct {
	ent.Schema
}

// Mixin of the Source.
func (Source) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Source.
func (Source) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("type").
			Values("upload", "url", "arcgis", "cifs", "postgres", "wfs", "s3").
			Comment("upload: files sent to the service; url: an HTTP, HTTPS or FTP archive or file; the others are remote servers."),
		field.String("title").NotEmpty().MaxLen(500).
			Annotations(entgql.OrderField("TITLE")),
		field.Text("description").Default(""),
		field.String("url_remote").Default("").MaxLen(2000).
			Comment("Where the data is, for every type but upload; never holds credentials."),
		field.String("username").Default("").Sensitive().
			Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("Write-only credential for the remote."),
		field.String("password").Default("").Sensitive().
			Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("Write-only credential for the remote."),
		field.Bool("ssl_verify").Default(true).
			Comment("Verify certificates while scanning."),
		field.Strings("folders").Optional().
			Comment("ArcGIS: the folders to scan; the whole server when empty."),
		field.Strings("schemas").Optional().
			Comment("PostgreSQL: the schemas to scan."),
		field.String("endpoint").Default("").MaxLen(2000).
			Comment("Object store: the http(s) URL of an S3-compatible server; AWS when empty."),
		field.String("region").Default("").MaxLen(100).
			Comment("Object store: the bucket's region; us-east-1 when empty."),
		field.String("scan_schedule").Default("").
			Comment("Cron-like schedule such as @daily; empty for none."),
		field.Time("next_scan_at").Optional().Nillable().
			Comment("When scan_schedule next starts a scan; null without a schedule."),
		field.Time("last_scanned_at").Optional().Nillable(),
		field.Int("user_id").Comment("The user who created the source."),
		field.Int("group_id").Optional().Nillable().Comment("The owning group, if any."),
	}
}

// Edges of the Source.
func (Source) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("scans", Scan.Type).Annotations(entgql.RelayConnection()),
		edge.To("datasources", Datasource.Type).Annotations(entgql.RelayConnection()),
		edge.From("user", User.Type).Ref("sources").Field("user_id").Unique().Required(),
		edge.From("group", Group.Type).Ref("sources").Field("group_id").Unique(),
	}
}

// Annotations of the Source.
func (Source) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
