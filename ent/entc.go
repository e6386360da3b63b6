//go:build ignore

// Command entc generates the Ent client and the GraphQL schema
// (schema/ent.graphql) from ent/schema. Run it through `go generate ./...`
// at the repository root.
package main

import (
	"log"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
	"github.com/vektah/gqlparser/v2/ast"
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithConfigPath("./gqlgen.yml"),
		entgql.WithSchemaGenerator(),
		entgql.WithSchemaPath("./schema/ent.graphql"),
		entgql.WithWhereInputs(true),
		entgql.WithSchemaHook(dropNodeQueries),
	)
	if err != nil {
		log.Fatalf("creating entgql extension: %v", err)
	}
	err = entc.Generate("./ent/schema", &gen.Config{
		Target:   "./ent",
		Package:  "github.com/geopub/geopub/ent",
		Features: []gen.Feature{gen.FeatureVersionedMigration, gen.FeatureLock, gen.FeatureUpsert, gen.FeatureModifier},
	}, entc.Extensions(ex))
	if err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
}

// dropNodeQueries removes the Relay `node`/`nodes` root fields. Geopub's IDs
// are plain integers per resource type (the REST specification says so), so
// an ID alone cannot name its type; objects are fetched by typed queries such
// as `group(id:)` instead.
func dropNodeQueries(_ *gen.Graph, s *ast.Schema) error {
	q := s.Types["Query"]
	if q == nil {
		return nil
	}
	kept := q.Fields[:0]
	for _, f := range q.Fields {
		if f.Name != "node" && f.Name != "nodes" {
			kept = append(kept, f)
		}
	}
	q.Fields = kept
	return nil
}
