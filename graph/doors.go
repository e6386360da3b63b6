package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
)

// The reads below serve the REST and HTML doors, which hold no Ent client
// (docs/architecture.md, the layering rule): each reads through r.Client,
// never through the client of an entity a mutation returned, which is its
// committed transaction's.

// LayerOf returns layer id to a door that has just read or written it, or
// one of its versions, through a resolver (to render it after a write, or
// to learn whether it is a table): it must be visible to the caller, whose
// credentials carry the layers' read or write scope. Unlike Query().Layer
// it counts no view.
func (r *Resolver) LayerOf(ctx context.Context, id int) (*ent.Layer, error) {
	return r.layerKind().seen(ctx, r.Client, id)
}
