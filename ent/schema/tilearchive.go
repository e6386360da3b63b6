package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// TileArchive is one tile archive of a published layer or set: a PMTiles
// or MBTiles file built by a durable job (internal/tilearchives) from the
// published version and kept in blob storage. While a newer version is
// built the last ready file keeps serving: version_id, blob_key, etag and
// bytes describe the file served, target_version_id and state the build.
type TileArchive struct {
	ent.Schema
}

// Fields of the TileArchive.
func (TileArchive) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("owner_kind").Values("layer", "set").Immutable(),
		field.Int("owner_id").Immutable(),
		field.String("service").NotEmpty().Immutable().
			Comment("The service key: vector-tile-pmtiles, vector-tile-mbtiles or raster-pmtile."),
		field.Enum("state").Values("queued", "building", "ready", "failed").Default("queued"),
		field.Int("min_zoom").Default(0),
		field.Int("max_zoom").Default(0),
		field.Bool("auto_zoom").Default(true).
			Comment("The default range, whose deepest zoom is lowered to keep within the limits; false for a range the publisher asked for."),
		field.Int("target_version_id").Default(0).Comment("The published version being built (0: none)."),
		field.JSON("target_members", []int{}).Optional().Comment("A set's member layer versions being built."),
		field.Int64("tiles_done").Default(0),
		field.Int64("tiles_estimate").Default(0),
		field.Int("version_id").Default(0).Comment("The version the served file was built from (0: none yet)."),
		field.JSON("members", []int{}).Optional().Comment("The member layer ids of a set the served file draws."),
		field.JSON("member_versions", []int{}).Optional().Comment("Their versions, in the same order."),
		field.String("blob_key").Default(""),
		field.String("etag").Default("").Comment("The served file's validator, without quotes."),
		field.Int64("bytes").Default(0),
		field.Int64("tile_count").Default(0).Comment("Tiles with content in the served file."),
		field.Int("built_min_zoom").Default(0).Comment("The served file's zoom range."),
		field.Int("built_max_zoom").Default(0),
		field.JSON("bounds", []float64{}).Optional(),
		field.String("error").Default(""),
		field.Int64("job_id").Optional().Nillable(),
		field.Int("requested_by").Default(0).Comment("The user notified of the build (0: the owner's creator)."),
		field.Time("created_at").Default(nowUTC).Immutable(),
		field.Time("updated_at").Default(nowUTC).UpdateDefault(nowUTC),
		field.Time("built_at").Optional().Nillable(),
	}
}

// Indexes of the TileArchive.
func (TileArchive) Indexes() []ent.Index {
	return []ent.Index{index.Fields("owner_kind", "owner_id", "service").Unique()}
}

// Annotations of the TileArchive.
func (TileArchive) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
