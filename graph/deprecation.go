package graph

import (
	"context"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/deprecation"
)

// deprecations marks datasets deprecated (internal/deprecation).
func (r *Resolver) deprecations() *deprecation.Service {
	return &deprecation.Service{Store: r.Store}
}

// deprecationDataset names dataset (t, id) for internal/deprecation,
// refusing sources, which are not datasets.
func deprecationDataset(field string, t DatasetType, id int) (deprecation.Dataset, error) {
	typ, ok := followType(t)
	if !ok {
		return deprecation.Dataset{}, apperr.Field(field, "Sources cannot be deprecated: give a layer, table, set, document or catalog item.")
	}
	return deprecation.Dataset{Type: typ, ID: id}, nil
}

// deprecationTarget loads dataset (t, id) for a deprecation: the write
// scope of its type and edit permission on it, as editing its metadata
// and publishing take (NOT_FOUND when the caller cannot see it,
// FORBIDDEN when they see it but may not edit it).
func (r *Resolver) deprecationTarget(ctx context.Context, t DatasetType, id int) (deprecation.Dataset, error) {
	d, err := deprecationDataset("type", t, id)
	if err != nil {
		return d, err
	}
	switch t {
	case DatasetTypeLayer, DatasetTypeTable:
		// loadLayer checks the edit permission; the type check after it,
		// as for every read by type, hides a layer asked as a table.
		l, err := r.loadLayer(ctx, id, true)
		if err != nil {
			return d, err
		}
		if string(l.Type) != d.Type {
			return d, apperr.New(apperr.NotFound, "%s %d not found.", typeNoun(t), id)
		}
	case DatasetTypeSet:
		_, err = r.loadSet(ctx, id, true)
	case DatasetTypeDocument:
		_, err = r.loadDocument(ctx, id, true)
	case DatasetTypeCatalogItem:
		_, err = r.loadItem(ctx, ItemPublicID(id), itemAdmin)
	}
	return d, err
}

// DeprecateDataset marks dataset (t, id) deprecated (REST and GraphQL):
// see internal/deprecation for the rules and deprecationTarget for who
// may. It returns the notice as stored.
func (r *Resolver) DeprecateDataset(ctx context.Context, t DatasetType, id int, reason string, replacement *ChangeDatasetInput) (*deprecation.Notice, error) {
	d, err := r.deprecationTarget(ctx, t, id)
	if err != nil {
		return nil, err
	}
	req := deprecation.Request{Reason: reason}
	if replacement != nil {
		rd, err := deprecationDataset("replacement", replacement.Type, replacement.ID)
		if err != nil {
			return nil, err
		}
		req.Replacement = &rd
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	if err := r.deprecations().Deprecate(ctx, v, d, req); err != nil {
		return nil, err
	}
	return r.deprecations().Read(ctx, d)
}

// UndeprecateDataset clears dataset (t, id)'s deprecation (REST and
// GraphQL), for those DeprecateDataset lets mark it.
func (r *Resolver) UndeprecateDataset(ctx context.Context, t DatasetType, id int) error {
	d, err := r.deprecationTarget(ctx, t, id)
	if err != nil {
		return err
	}
	if err := r.deprecations().Undeprecate(ctx, d); err != nil {
		return err
	}
	return nil
}
