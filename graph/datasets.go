package graph

import (
	"context"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// datasetLevel returns the caller's permission level on one dataset whose
// owning group is ownerGroup (nil when a user owns it).
func (r *Resolver) datasetLevel(ctx context.Context, kind access.Kind, id int, ownerGroup *int) (access.Level, error) {
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return access.None, err
	}
	return v.Level(ctx, r.Client, kind, id, ownerGroup)
}

// requireDatasetAdmin fails with FORBIDDEN unless the caller administers
// the dataset: deleting it and managing its permissions are admin work.
func (r *Resolver) requireDatasetAdmin(ctx context.Context, kind access.Kind, id int, ownerGroup *int) error {
	lv, err := r.datasetLevel(ctx, kind, id, ownerGroup)
	if err != nil {
		return err
	}
	if lv < access.Admin {
		return apperr.New(apperr.PermissionDenied, "You need admin permission on this %s.", kindNoun(kind))
	}
	return nil
}

// kindNoun names a dataset kind in messages.
func kindNoun(kind access.Kind) string {
	if kind == access.KindCatalogItem {
		return "catalog item"
	}
	return string(kind)
}
