package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// MetadataDocument is the metadata XML uploaded for one version of a
// dataset (ISO 19115/19139, FGDC CSDGM or Dublin Core), kept as uploaded,
// with a simplified form extracted from it for JSON answers.
type MetadataDocument struct {
	ent.Schema
}

// Mixin of the MetadataDocument.
func (MetadataDocument) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the MetadataDocument.
func (MetadataDocument) Fields() []ent.Field {
	return []ent.Field{
		field.String("dataset_kind").NotEmpty().
			Comment("The kind of dataset: layer (layers and tables), item (catalog items); others add theirs."),
		field.Int("dataset_id"),
		field.Int("version_id").Comment("The dataset version the document describes."),
		field.Enum("format").Values("iso", "fgdc", "dc").Comment("Detected from the document's root element."),
		field.Text("xml").Comment("The document as uploaded."),
		field.Text("title").Default(""),
		field.Text("abstract").Default(""),
		field.Strings("keywords").Optional(),
		field.JSON("bbox", []float64{}).Optional().Annotations(entgql.Type("[Float!]")).
			Comment("[west, south, east, north] in decimal degrees, when the document gives one."),
		field.Int("uploaded_by"),
	}
}

// Indexes of the MetadataDocument.
func (MetadataDocument) Indexes() []ent.Index {
	return []ent.Index{index.Fields("dataset_kind", "version_id").Unique()}
}

// Annotations of the MetadataDocument.
func (MetadataDocument) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField)}
}
