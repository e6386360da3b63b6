package publishing

import (
	"context"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/notify"
)

// PublishCatalogItemVersion makes draft v its catalog item it's published
// version on tx, at now: CONFLICT when v is no longer a draft; the
// previous one is superseded, the item takes v's title, and publisherID
// is notified, the item named by itemRef (its public id). Catalog items
// have no import to wait for, so they publish at once rather than through
// a publish group. Run it in a transaction.
func PublishCatalogItemVersion(ctx context.Context, tx *ent.Client, hub *notify.Hub, it *ent.CatalogItem, v *ent.CatalogItemVersion,
	publisherID int, itemRef string, now time.Time) error {
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
	if err := audit.Record(ctx, tx, publishEntry("item", itemRef, v.Title, it.GroupID, it.PublishedVersionID, v.ID, 0)); err != nil {
		return err
	}
	_, err = hub.Publish(ctx, tx, publisherID, "publish.completed", map[string]any{"item_id": itemRef, "version_id": v.ID})
	return err
}
