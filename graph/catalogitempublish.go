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
	"github.com/geopub/geopub/internal/apperr"
)

// datasetKindItem is how catalog items are named in tables shared by
// several kinds of dataset (marks, access requests, metadata).
const datasetKindItem = metadataKindItem

// publishItemVersion makes a draft its item's published version inside tx.
// Catalog items have no import to wait for, so they publish at once rather
// than through a publish group; the publisher is notified as for other
// publishes.
func (r *Resolver) publishItemVersion(ctx context.Context, tx *ent.Client, it *ent.CatalogItem, v *ent.CatalogItemVersion, userID int) error {
	now := nowUTC()
	n, err := tx.CatalogItemVersion.Update().
		Where(catalogitemversion.ID(v.ID), catalogitemversion.StateEQ(catalogitemversion.StateDraft)).
		SetState(catalogitemversion.StatePublished).SetPublishedAt(now).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.New(apperr.Conflict, "Version %d is no longer a draft.", v.ID)
	}
	if _, err := tx.CatalogItemVersion.Update().
		Where(catalogitemversion.ItemID(it.ID), catalogitemversion.StateEQ(catalogitemversion.StatePublished),
			catalogitemversion.IDNEQ(v.ID)).
		SetState(catalogitemversion.StateSuperseded).Save(ctx); err != nil {
		return err
	}
	upd := tx.CatalogItem.UpdateOneID(it.ID).SetPublishedVersionID(v.ID).SetPublishedAt(now).SetTitle(v.Title)
	if it.FirstPublishedAt == nil {
		upd.SetFirstPublishedAt(now)
	}
	if err := upd.Exec(ctx); err != nil {
		return err
	}
	_, err = r.Notify.Publish(ctx, tx, userID, "publish.completed",
		map[string]any{"item_id": ItemPublicID(it.ID), "version_id": v.ID})
	return err
}

// deleteItemRows removes an item and everything that belongs to it.
func deleteItemRows(ctx context.Context, c *ent.Client, itemID int) error {
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
	if err := deleteMetadata(ctx, c, metadataKindItem, itemID); err != nil {
		return err
	}
	if err := access.ForgetDataset(ctx, c, access.KindCatalogItem, itemID); err != nil {
		return err
	}
	return c.CatalogItem.DeleteOneID(itemID).Exec(ctx)
}
