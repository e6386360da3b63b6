package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CatalogItem is a versioned catalog entry that links to a resource hosted
// elsewhere or on the site. Its public id is its id prefixed with "c".
type CatalogItem struct {
	ent.Schema
}

// Mixin of the CatalogItem.
func (CatalogItem) Mixin() []ent.Mixin {
	return []ent.Mixin{TimeMixin{}, DatasetMixin{Noun: "item", Counts: false}, DeprecationMixin{}}
}

// Fields of the CatalogItem.
func (CatalogItem) Fields() []ent.Field {
	return []ent.Field{
		field.String("title").NotEmpty().MaxLen(500).
			Comment("The title of the published version, or of the first draft until one is published."),
	}
}

// Edges of the CatalogItem.
func (CatalogItem) Edges() []ent.Edge {
	return []ent.Edge{
		// Versions are read through resolvers that hide drafts from readers.
		edge.To("versions", CatalogItemVersion.Type).Annotations(entgql.Skip()),
	}
}

// Annotations of the CatalogItem.
func (CatalogItem) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput)}
}

// CatalogItemVersion is one version of a catalog item. An item has at most
// one draft; the published version cannot change.
type CatalogItemVersion struct {
	ent.Schema
}

// Mixin of the CatalogItemVersion.
func (CatalogItemVersion) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the CatalogItemVersion.
func (CatalogItemVersion) Fields() []ent.Field {
	return []ent.Field{
		field.Int("item_id"),
		field.Enum("state").Values("draft", "published", "superseded", "deleted").Default("draft").
			Comment("draft until published; superseded when a newer version is published; deleted when a draft is discarded."),
		field.String("title").NotEmpty().MaxLen(500),
		field.Text("description").Default(""),
		field.String("link_url").MaxLen(2000).Default("").Comment("The linked resource: an http or https URL."),
		field.Strings("tags").Optional(),
		field.Strings("categories").Optional(),
		field.Int("created_by").Comment("User id of the creator."),
		field.Time("published_at").Optional().Nillable(),
	}
}

// Edges of the CatalogItemVersion.
func (CatalogItemVersion) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("item", CatalogItem.Type).Ref("versions").Field("item_id").Unique().Required().
			Annotations(entgql.Skip()),
	}
}

// Indexes of the CatalogItemVersion.
func (CatalogItemVersion) Indexes() []ent.Index {
	return []ent.Index{index.Fields("item_id", "state")}
}

// Annotations of the CatalogItemVersion.
func (CatalogItemVersion) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput)}
}
