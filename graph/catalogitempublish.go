package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitemattachment"
	"github.com/geopub/geopub/ent/catalogitemgeotag"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/datasetaccessrequest"
	"github.com/geopub/geopub/ent/datasetmark"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/metadata"
)

// datasetKindItem is how catalog items are named in tables shared by
// several kinds of dataset (marks, access requests, metadata).
const datasetKindItem = metadata.KindItem

// deleteItemRows removes an item and everything that belongs to it.
func deleteItemRows(ctx context.Context, c *ent.Client, it *ent.CatalogItem) error {
	itemID := it.ID
	if _, err := c.CatalogItemVersion.Delete().Where(catalogitemversion.ItemID(itemID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := c.CatalogItemAttachment.Delete().Where(catalogitemattachment.ItemID(itemID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := c.CatalogItemGeotag.Delete().Where(catalogitemgeotag.ItemID(itemID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := c.DatasetMark.Delete().
		Where(datasetmark.DatasetKind(datasetKindItem), datasetmark.DatasetID(itemID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := c.DatasetAccessRequest.Delete().
		Where(datasetaccessrequest.DatasetKind(datasetKindItem), datasetaccessrequest.DatasetID(itemID)).Exec(ctx); err != nil {
		return err
	}
	if err := deleteMetadata(ctx, c, metadata.KindItem, itemID); err != nil {
		return err
	}
	if err := access.ForgetDataset(ctx, c, access.GrantedOn{Kind: access.KindCatalogItem, ID: itemID, Group: it.GroupID, Label: it.Title}); err != nil {
		return err
	}
	return c.CatalogItem.DeleteOneID(itemID).Exec(ctx)
}
