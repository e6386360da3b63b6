package graph

import (
	"context"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/follows"
)

// followType is the follows' name of an API dataset type, the inverse
// of changeDatasetTypes; false for sources.
func followType(t DatasetType) (string, bool) {
	for name, api := range changeDatasetTypes {
		if api == t {
			return name, true
		}
	}
	return "", false
}

// SetFollow follows or unfollows a dataset for the caller (REST and
// GraphQL): signed in with the catalog scope, and a dataset the caller
// may see (NOT_FOUND otherwise).
func (r *Resolver) SetFollow(ctx context.Context, t DatasetType, id int, on bool) error {
	u, err := access.RequireUser(ctx, auth.ScopeCatalog)
	if err != nil {
		return err
	}
	typ, ok := followType(t)
	if !ok {
		return apperr.Field("dataset", "Sources cannot be followed: give a layer, table, set, document or catalog item.")
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return err
	}
	return r.Follows.Set(ctx, v, u.ID, follows.Dataset{Type: typ, ID: id}, on)
}

// FollowedDatasets lists what the caller follows (REST and GraphQL).
func (r *Resolver) FollowedDatasets(ctx context.Context) ([]follows.Followed, error) {
	u, err := access.RequireUser(ctx, auth.ScopeCatalog)
	if err != nil {
		return nil, err
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return r.Follows.List(ctx, v, u.ID)
}
