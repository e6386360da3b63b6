package graph

import (
	"context"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/publishers"
	"github.com/geopub/geopub/internal/textrules"
)

// Publishers lists the publishers the caller may see (publishers.List),
// filtered by q (any word in the name) and by kind ("site" for groups,
// "user"), in order. It needs the catalog scope.
func (r *Resolver) Publishers(ctx context.Context, q string, kinds []string, sortBy publishers.Sort) ([]publishers.Publisher, error) {
	if err := access.RequireScope(ctx, auth.ScopeCatalog); err != nil {
		return nil, err
	}
	if err := textrules.Query("q", &q); err != nil {
		return nil, err
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return publishers.List(ctx, r.Client, v, q, kinds, sortBy)
}

// RequireCatalog checks that the caller may read the catalogue (the
// catalog scope; anonymous callers and sessions pass): the explore
// sections' list, which names no dataset, checks it too.
func (r *Resolver) RequireCatalog(ctx context.Context) error {
	return access.RequireScope(ctx, auth.ScopeCatalog)
}
