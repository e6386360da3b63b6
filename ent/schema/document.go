package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Document is a versioned file dataset (a PDF, a spreadsheet, an image)
// created from exactly one document datasource.
type Document struct {
	ent.Schema
}

// Mixin of the Document.
func (Document) Mixin() []ent.Mixin {
	return []ent.Mixin{TimeMixin{}, DatasetMixin{Noun: "document", Counts: true}, DeprecationMixin{}}
}

// Fields of the Document.
func (Document) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(500).
			Comment("The name of the published version, or of the first draft until one is published."),
	}
}

// Edges of the Document.
func (Document) Edges() []ent.Edge {
	return []ent.Edge{
		// Versions are read through the document's version fields, which
		// hide drafts from those who may not edit.
		edge.To("versions", DocumentVersion.Type).Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Annotations of the Document.
func (Document) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// DocumentVersion is one version of a document: its description and a
// copy of its file in blob storage.
type DocumentVersion struct {
	ent.Schema
}

// Fields of the DocumentVersion.
func (DocumentVersion) Fields() []ent.Field {
	return []ent.Field{
		field.Int("document_id"),
		field.Enum("state").Values("draft", "published", "superseded", "deleted").Default("draft"),
		field.String("name").NotEmpty().MaxLen(500),
		field.Text("description").Default(""),
		field.Int("datasource_id"),
		field.String("file_key").Annotations(entgql.Skip(entgql.SkipAll)).Comment("Where the file is in blob storage."),
		field.String("file_name"),
		field.String("extension").Default(""),
		field.String("content_type").Default("application/octet-stream"),
		field.Int64("file_size").Default(0),
		field.Int("created_by"),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("updated_at").Default(nowUTC).UpdateDefault(nowUTC),
		field.Strings("tags").Optional().Comment("Free-text tags, trimmed, without repeats."),
		field.Strings("categories").Optional().Comment("Keys of categories (Category.key)."),
		field.Int("license_id").Optional().Nillable().Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The licence the version is published under; read through the license field."),
		field.Time("published_at").Optional().Nillable(),
	}
}

// Edges of the DocumentVersion.
func (DocumentVersion) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("document", Document.Type).Ref("versions").Field("document_id").Unique().Required(),
		edge.From("license", License.Type).Ref("document_versions").Field("license_id").Unique().
			Annotations(entgql.Skip(entgql.SkipAll)),
	}
}
