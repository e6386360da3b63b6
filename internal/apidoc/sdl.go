package apidoc

import (
	"bytes"
	"net/http"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

// SDLPath is where the GraphQL schema is served.
const SDLPath = "/graphql/schema.graphql"

// SDL prints schema in the GraphQL schema definition language, with its
// descriptions and without the built-in types every server has.
func SDL(schema *ast.Schema) []byte {
	var b bytes.Buffer
	formatter.NewFormatter(&b).FormatSchema(schema)
	return b.Bytes()
}

// SDLHandler serves the SDL of schema as text/plain; anyone may read it,
// as anyone may introspect the endpoint.
func SDLHandler(schema *ast.Schema) http.HandlerFunc {
	sdl := SDL(schema)
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "public, max-age=300")
		http.ServeContent(w, r, "schema.graphql", time.Time{}, bytes.NewReader(sdl))
	}
}
