package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// License is a licence datasets can be published under: the Creative
// Commons family (by type, version and jurisdiction) and the public-domain
// dedication, seeded by a migration. Licences are public reference data.
type License struct {
	ent.Schema
}

// Fields of the License.
func (License) Fields() []ent.Field {
	return []ent.Field{
		field.String("type").NotEmpty().MaxLen(100).
			Comment("cc-by, cc-by-sa, cc-by-nd, cc-by-nc, cc-by-nc-sa, cc-by-nc-nd or public-domain."),
		field.String("jurisdiction").MaxLen(20).Default("").
			Comment("Two-letter jurisdiction of a ported Creative Commons licence; empty when unported or not Creative Commons."),
		field.String("version").MaxLen(20).Default("").Comment("3.0, 4.0, ...; empty when not versioned."),
		field.String("title").NotEmpty().MaxLen(500),
		field.String("legal_code_url").MaxLen(2000).Default("").
			Comment("The licence's canonical page (creativecommons.org)."),
	}
}

// Edges of the License.
func (License) Edges() []ent.Edge {
	return []ent.Edge{
		// Read through the versions, never from the licence.
		edge.To("layer_versions", LayerVersion.Type).Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("set_versions", SetVersion.Type).Annotations(entgql.Skip(entgql.SkipAll)),
		edge.To("document_versions", DocumentVersion.Type).Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Annotations of the License.
func (License) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField, entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)}
}

// Category is a node of the catalogue's category tree. Its key is a path
// of slugs ("environment/water"); the parent of "a/b" is "a". Categories
// are public reference data, seeded by a migration.
type Category struct {
	ent.Schema
}

// Fields of the Category.
func (Category) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").NotEmpty().MaxLen(200).Unique().Comment(`A "parent/child" path of slugs.`),
		field.String("name").NotEmpty().MaxLen(200),
	}
}

// Annotations of the Category.
func (Category) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField, entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)}
}
