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

// LayerVersion is one version of a layer: its description and its
// imported features. A layer has at most one draft; the published version
// cannot change.
type LayerVersion struct {
	ent.Schema
}

// Mixin of the LayerVersion.
func (LayerVersion) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the LayerVersion.
func (LayerVersion) Fields() []ent.Field {
	return []ent.Field{
		field.Int("layer_id"),
		field.Enum("state").Values("draft", "published", "superseded", "deleted").Default("draft").
			Comment("draft until published; superseded when a newer version is published; deleted when a draft is discarded."),
		field.Enum("status").Values("pending", "importing", "ok", "failed", "cancelled").Default("pending").
			Comment("The import: importing, then ok or failed."),
		field.Float("progress").Default(0),
		field.String("import_error").Default(""),
		field.Int64("import_job_id").Optional().Nillable().Annotations(entgql.Skip(entgql.SkipAll)),
		field.String("name").NotEmpty().MaxLen(500),
		field.Text("description").Default(""),
		field.String("reference").Default(""),
		field.Int("created_by").Comment("User id of the creator."),
		field.JSON("datasource_ids", []int{}).Comment("The datasources imported into this version."),
		field.String("crs").Default(""),
		field.String("geometry_type").Default(""),
		field.String("geometry_field").Default(""),
		field.JSON("fields", []schematype.Field{}).Optional().Annotations(entgql.Type("[DatasourceField!]")),
		field.Strings("primary_key_fields").Optional(),
		field.Bool("key_by_fid").Default(false).
			Comment("No key holds and the data is one shapefile: diffs match features by FID (record number), flagged unstable (internal/layerkey)."),
		field.Int64("feature_count").Default(0),
		field.Int64("empty_geometry_count").Default(0),
		field.JSON("extent", []float64{}).Optional().Annotations(entgql.Type("[Float!]")).
			Comment("[minx, miny, maxx, maxy] in EPSG:4326."),
		field.Strings("tags").Optional().Comment("Free-text tags, trimmed, without repeats."),
		field.Strings("categories").Optional().Comment("Keys of categories (Category.key)."),
		field.Int("license_id").Optional().Nillable().Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The licence the version is published under; read through the license field."),
		field.Time("published_at").Optional().Nillable(),
		field.JSON("bands", []schematype.Band{}).Optional().Annotations(entgql.Type("[GridBand!]")).
			Comment("Bands of a grid or raster version, in band order."),
		field.Float("raster_resolution").Optional().Nillable().
			Comment("Cell size of a grid or raster version, in units of its CRS."),
		field.Int("raster_width").Default(0).Comment("Columns of a grid or raster version."),
		field.Int("raster_height").Default(0).Comment("Rows of a grid or raster version."),
	}
}

// Edges of the LayerVersion.
func (LayerVersion) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("layer", Layer.Type).Ref("versions").Field("layer_id").Unique().Required(),
		edge.From("license", License.Type).Ref("layer_versions").Field("license_id").Unique().
			Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Indexes of the LayerVersion.
func (LayerVersion) Indexes() []ent.Index {
	return []ent.Index{index.Fields("layer_id", "state")}
}

// Annotations of the LayerVersion.
func (LayerVersion) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
