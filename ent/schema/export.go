package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/geopub/geopub/ent/schema/schematype"
)

// Export is one bulk download: several layers and tables (and grids),
// optionally cropped and reprojected, written by a durable job into one
// zip in blob storage. Only its creator and site administrators see it.
type Export struct {
	ent.Schema
}

// Fields of the Export.
func (Export) Fields() []ent.Field {
	return []ent.Field{
		field.Int("user_id").Comment("The user who created the export; the only one (with site administrators) who sees it."),
		field.String("name").NotEmpty().MaxLen(200).Comment("Slug with the site prefix; the file is {name}.zip."),
		field.Enum("created_via").Values("API", "web").Comment("API for tokens, web for cookie sessions."),
		field.Enum("state").Values("processing", "complete", "cancelled", "error", "gone").Default("processing"),
		field.Float("progress").Optional().Nillable().Comment("0..1 while processing; null after a cancel."),
		field.String("crs").Default("").Comment("The target CRS, EPSG:<code>."),
		field.JSON("formats", map[string]string{}).Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("Data kind → format MIME."),
		field.JSON("items", []schematype.ExportItem{}).Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The items as asked for: URL and per-item options."),
		field.JSON("extent", map[string]any{}).Optional().Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The crop area as asked for, a GeoJSON (Multi)Polygon in EPSG:4326."),
		field.String("crop_feature").Default("").Comment("The crop-feature URL, when the crop area was given as one."),
		field.Bytes("clip").Optional().Nillable().Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The crop area as WKB in EPSG:4326, what the job clips to."),
		field.JSON("options", map[string]any{}).Optional().Annotations(entgql.Skip(entgql.SkipAll)),
		field.JSON("parts", []schematype.ExportPart{}).Optional().Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("The datasets the job writes, resolved at validation."),
		field.Int64("size_estimate_zipped").Default(0),
		field.Int64("feature_count").Default(0).Comment("Estimated features of every part together."),
		field.Int64("job_id").Optional().Nillable().Annotations(entgql.Skip(entgql.SkipAll)),
		field.String("blob_key").Default("").Annotations(entgql.Skip(entgql.SkipAll)),
		field.Int64("file_size").Default(0).Comment("Bytes of the zip once complete."),
		field.String("error").Default("").Comment("Why the export failed (state error)."),
		field.Time("created_at").Default(nowUTC).Immutable().Annotations(entgql.OrderField("CREATED_AT")),
		field.Time("completed_at").Optional().Nillable(),
		field.Time("expires_at").Optional().Nillable().Comment("When the file is removed and the export becomes gone."),
	}
}

// Indexes of the Export.
func (Export) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id", "id"), index.Fields("state", "expires_at")}
}

// Annotations of the Export.
func (Export) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
