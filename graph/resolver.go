// Package graph is the one implementation of every Geopub operation,
// authorization included. gqlgen serves it at /graphql, and the REST adapter
// (package rest) calls the same resolver methods, then renders the REST
// shapes.
package graph

import (
	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/auth"
)

// Resolver is the root of the resolvers; it holds only the dependencies.
type Resolver struct {
	Client *ent.Client
	Auth   *auth.Service
}

// NewSchema returns the executable schema over r.
func NewSchema(r *Resolver) graphql.ExecutableSchema {
	return NewExecutableSchema(Config{Resolvers: r})
}
