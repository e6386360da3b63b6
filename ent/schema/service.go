package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/geopub/geopub/ent/schema/schematype"
)

// DatasetService is a dataset's own setting of one data service: a
// built-in service switched from its default, or an external service made
// from a template. Built-in services without a row have their default
// state.
type DatasetService struct {
	ent.Schema
}

// Mixin of the DatasetService.
func (DatasetService) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the DatasetService.
func (DatasetService) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("owner_kind").Values("layer", "set", "catalog_item").
			Comment("The kind of owner; layers and tables are both `layer`."),
		field.Int("owner_id"),
		field.String("key").NotEmpty().Comment("The service key; `external` for services made from templates."),
		field.Bool("enabled").Default(true),
		field.Int("template_id").Optional().Nillable().Comment("The external service template, for external services."),
		field.String("title").Default(""),
		field.Text("description").Default(""),
		field.JSON("urls", []schematype.ServiceURL{}).Optional().
			Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The filled template URLs, for external services."),
	}
}

// Indexes of the DatasetService.
func (DatasetService) Indexes() []ent.Index {
	return []ent.Index{index.Fields("owner_kind", "owner_id", "key")}
}

// Annotations of the DatasetService.
func (DatasetService) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// ServicePermission lets one user or group use one service of one owner.
// While an owner's service has none, the owner's permissions decide.
type ServicePermission struct {
	ent.Schema
}

// Mixin of the ServicePermission.
func (ServicePermission) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ServicePermission.
func (ServicePermission) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("owner_kind").Values("layer", "set", "catalog_item"),
		field.Int("owner_id"),
		field.String("service_id").NotEmpty().Comment("The service key, or the id of an external service."),
		field.Enum("subject").Values("user", "group", "everyone", "administrators"),
		field.Int("subject_id").Default(0),
	}
}

// Indexes of the ServicePermission.
func (ServicePermission) Indexes() []ent.Index {
	return []ent.Index{index.Fields("owner_kind", "owner_id", "service_id", "subject", "subject_id").Unique()}
}

// Annotations of the ServicePermission.
func (ServicePermission) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// ExternalServiceTemplate is a site-wide recipe for a service hosted
// elsewhere, attached to datasets with their id, short name and title
// filled in.
type ExternalServiceTemplate struct {
	ent.Schema
}

// Mixin of the ExternalServiceTemplate.
func (ExternalServiceTemplate) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ExternalServiceTemplate.
func (ExternalServiceTemplate) Fields() []ent.Field {
	return []ent.Field{
		field.String("title").NotEmpty().MaxLen(200),
		field.String("short_name").Default("").MaxLen(100),
		field.Text("description").Default(""),
		field.JSON("template_urls", []schematype.ServiceURL{}).Annotations(entgql.Skip(entgql.SkipAll)),
		field.Strings("scope").Comment("Dataset types it attaches to: layer, table, set, catalog_item, or all."),
		field.Bool("enabled").Default(true),
		field.String("access_policy").Default("all-users"),
	}
}

// Annotations of the ExternalServiceTemplate.
func (ExternalServiceTemplate) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// SiteSetting is one site-wide setting, changed by site administrators.
type SiteSetting struct {
	ent.Schema
}

// Mixin of the SiteSetting.
func (SiteSetting) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the SiteSetting.
func (SiteSetting) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().Unique(),
		field.Bool("enabled"),
	}
}

// Annotations of the SiteSetting.
func (SiteSetting) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
