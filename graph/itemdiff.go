package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/catalogitems"
	"github.com/geopub/geopub/internal/versiondiff"
)

// CatalogItemDiff is what changed from one version of a catalog item to
// another (the kart-diff service, "for a catalog item, its metadata"):
// the metadata fields whose values differ.
type CatalogItemDiff struct {
	Item   *ent.CatalogItem
	From   *ent.CatalogItemVersion
	To     *ent.CatalogItemVersion
	Fields []*versiondiff.FieldChange
}

// CatalogItemDiffOf compares two versions of the catalog item a public id
// names, by the rules of every diff: the kart-diff service of the item;
// to, else the published version; from, else the one published before
// it; drafts only for editors.
func (r *Resolver) CatalogItemDiffOf(ctx context.Context, itemID string, from, to *int) (*CatalogItemDiff, error) {
	it, err := r.loadItem(ctx, itemID, itemRead)
	if err != nil {
		return nil, err
	}
	if err := r.requireService(ctx, access.CatalogItemOwner(it), DiffServiceKey); err != nil {
		return nil, err
	}
	a, b, err := r.itemKind().diffVersions(ctx, it, from, to)
	if err != nil {
		return nil, err
	}
	fs, err := catalogitems.Compare(ctx, r.Client, a, b)
	if err != nil {
		return nil, err
	}
	return &CatalogItemDiff{Item: it, From: a, To: b, Fields: fieldChanges(fs)}, nil
}
