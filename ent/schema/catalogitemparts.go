package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CatalogItemAttachment attaches an existing document to a catalog item.
// Attachments belong to the item, not to one of its versions.
type CatalogItemAttachment struct {
	ent.Schema
}

// Fields of the CatalogItemAttachment.
func (CatalogItemAttachment) Fields() []ent.Field {
	return []ent.Field{
		field.Int("item_id"),
		field.Int("document_id"),
		field.Time("created_at").Default(nowUTC).Immutable(),
	}
}

// Indexes of the CatalogItemAttachment.
func (CatalogItemAttachment) Indexes() []ent.Index {
	return []ent.Index{index.Fields("item_id", "document_id").Unique()}
}

// Annotations of the CatalogItemAttachment.
func (CatalogItemAttachment) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// CatalogItemGeotag is a named place a catalog item is about.
type CatalogItemGeotag struct {
	ent.Schema
}

// Fields of the CatalogItemGeotag.
func (CatalogItemGeotag) Fields() []ent.Field {
	return []ent.Field{
		field.Int("item_id"),
		field.String("name").NotEmpty().MaxLen(200),
		field.JSON("geometry", map[string]any{}).Annotations(entgql.Type("Map")).
			Comment("A GeoJSON geometry in EPSG:4326."),
		field.Time("created_at").Default(nowUTC).Immutable(),
	}
}

// Indexes of the CatalogItemGeotag.
func (CatalogItemGeotag) Indexes() []ent.Index {
	return []ent.Index{index.Fields("item_id")}
}

// Annotations of the CatalogItemGeotag.
func (CatalogItemGeotag) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField)}
}
