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

// Datasource is one file, layer or service a scan found inside a source.
// Layers and tables are created from datasources of one data type and
// schema; documents from exactly one document datasource.
type Datasource struct {
	ent.Schema
}

// Mixin of the Datasource.
func (Datasource) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Datasource.
func (Datasource) Fields() []ent.Field {
	return []ent.Field{
		field.Int("source_id"),
		field.String("path").Comment("Path inside the source (the upload path)."),
		field.String("layer_name").Default("").Comment("Layer inside a multi-layer file, such as a GeoPackage table."),
		field.String("title").NotEmpty(),
		field.Enum("data_type").Values("vector", "table", "grid", "document"),
		field.String("format").Default("").Comment("MIME type, such as application/x-zipped-shp."),
		field.String("geometry_type").Default("").Comment("point, multipoint, linestring, ...; empty for tables."),
		field.String("crs").Default("").Comment("EPSG:code when known."),
		field.JSON("fields", []schematype.Field{}).Optional().
			Annotations(entgql.Type("[DatasourceField!]")).
			Comment("The attributes in file order."),
		field.Int64("feature_count").Default(0),
		field.JSON("extent", []float64{}).Optional().
			Annotations(entgql.Type("[Float!]")).
			Comment("[minx, miny, maxx, maxy] in EPSG:4326."),
		field.Int("num_dims").Default(2),
		field.Int("num_bands").Default(0),
		field.Int64("file_size").Default(0),
		field.String("metadata_path").Default("").Comment("Metadata XML found beside the data."),
		field.Strings("files").Optional().
			Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("Every file of the datasource (main file and sidecars), relative to the source."),
		field.Strings("primary_key").Optional().
			Comment("The key the source declares: a PostgreSQL table's primary key, a GeoPackage layer's primary-key column. Imports take it as the version's primary key."),
		field.Bool("missing").Default(false).Comment("The last scan no longer found it."),
		field.String("fingerprint").Default("").
			Annotations(entgql.Skip(entgql.SkipAll)).
			Comment("Changes whenever a remote datasource's content does (a service kind's content hash); empty for files."),
	}
}

// Edges of the Datasource.
func (Datasource) Edges() []ent.Edge {
	return []ent.Edge{
		// GraphQL serves the source through a resolver of its own
		// (schema/sources.graphql): it is null for callers who may not
		// read the source, as those who see a layer made from it may.
		edge.From("source", Source.Type).Ref("datasources").Field("source_id").Unique().Required().
			Annotations(entgql.Skip(entgql.SkipAll)),
	}
}

// Indexes of the Datasource.
func (Datasource) Indexes() []ent.Index {
	return []ent.Index{index.Fields("source_id", "path", "layer_name").Unique()}
}

// Annotations of the Datasource.
func (Datasource) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
