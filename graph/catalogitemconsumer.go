package graph

import (
	"context"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetaccessrequest"
	"github.com/geopub/geopub/ent/datasetmark"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// setMark sets or clears the caller's mark on an item; both are
// idempotent.
func (r *Resolver) setMark(ctx context.Context, itemID int, kind datasetmark.Kind, on bool) error {
	uid := auth.FromContext(ctx).User.ID
	if !on {
		_, err := r.Client.DatasetMark.Delete().Where(datasetmark.DatasetKind(datasetKindItem), datasetmark.DatasetID(itemID),
			datasetmark.UserID(uid), datasetmark.KindEQ(kind)).Exec(ctx)
		return err
	}
	err := r.Client.DatasetMark.Create().SetDatasetKind(datasetKindItem).SetDatasetID(itemID).SetUserID(uid).SetKind(kind).
		OnConflictColumns(datasetmark.FieldDatasetKind, datasetmark.FieldDatasetID, datasetmark.FieldUserID, datasetmark.FieldKind).
		DoNothing().Exec(ctx)
	if err != nil && strings.Contains(err.Error(), "no rows in result set") {
		// DoNothing on a conflict inserts nothing: already marked.
		return nil
	}
	return err
}

// outstandingItemRequest returns a user's outstanding access request for
// an item.
func outstandingItemRequest(ctx context.Context, c *ent.Client, itemID, userID int) (*ent.DatasetAccessRequest, error) {
	return c.DatasetAccessRequest.Query().Where(datasetaccessrequest.DatasetKind(datasetKindItem),
		datasetaccessrequest.DatasetID(itemID), datasetaccessrequest.UserID(userID),
		datasetaccessrequest.StatusEQ(datasetaccessrequest.StatusOutstanding)).First(ctx)
}

// requestItemAccess files the caller's request for access to an item and
// tells the item's owner; an outstanding request is returned as it is.
// Callers who may already administer the item get CONFLICT.
func (r *Resolver) requestItemAccess(ctx context.Context, it *ent.CatalogItem) (*ent.DatasetAccessRequest, error) {
	ok, err := r.canEditItem(ctx, it)
	if err != nil {
		return nil, err
	}
	if ok {
		return nil, apperr.New(apperr.Conflict, "You already have access to catalog item %s.", ItemPublicID(it.ID))
	}
	uid := auth.FromContext(ctx).User.ID
	var ar *ent.DatasetAccessRequest
	err = r.withTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		existing, err := outstandingItemRequest(ctx, tx, it.ID, uid)
		if err == nil {
			ar = existing
			return nil
		}
		if !ent.IsNotFound(err) {
			return err
		}
		ar, err = tx.DatasetAccessRequest.Create().SetDatasetKind(datasetKindItem).SetDatasetID(it.ID).SetUserID(uid).Save(ctx)
		if err != nil {
			return err
		}
		_, err = r.Notify.Publish(ctx, tx, it.UserID, "item.access_requested",
			map[string]any{"item_id": ItemPublicID(it.ID), "request_id": ar.ID, "user_id": uid})
		return err
	})
	return ar, err
}

// revokeItemAccess revokes the caller's outstanding request.
func (r *Resolver) revokeItemAccess(ctx context.Context, it *ent.CatalogItem) (bool, error) {
	uid := auth.FromContext(ctx).User.ID
	n, err := r.Client.DatasetAccessRequest.Update().Where(datasetaccessrequest.DatasetKind(datasetKindItem),
		datasetaccessrequest.DatasetID(it.ID), datasetaccessrequest.UserID(uid),
		datasetaccessrequest.StatusEQ(datasetaccessrequest.StatusOutstanding)).
		SetStatus(datasetaccessrequest.StatusRevoked).SetClosedAt(nowUTC()).Save(ctx)
	if err == nil && n == 0 {
		err = apperr.New(apperr.NotFound, "You have no outstanding access request for %s.", ItemPublicID(it.ID))
	}
	return err == nil, err
}

// MyItemAccessRequest returns the caller's outstanding request for access
// to an item: NOT_FOUND when there is none, UNAUTHENTICATED for anonymous
// callers.
func (r *Resolver) MyItemAccessRequest(ctx context.Context, itemID string) (*ent.DatasetAccessRequest, error) {
	it, err := r.loadItem(ctx, itemID, itemConsume)
	if err != nil {
		return nil, err
	}
	ar, err := outstandingItemRequest(ctx, r.Client, it.ID, auth.FromContext(ctx).User.ID)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "You have no outstanding access request for %s.", itemID)
	}
	return ar, err
}
