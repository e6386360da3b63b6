package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetaccessrequest"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
)

// The administrators' side of requests for access to a catalog item. The
// specification names request-access among an item's consumer actions and
// says no more, so this follows the group access requests: the item's
// admins (admin permission, as for managing its permissions) list the
// outstanding requests, approve one, which grants the requester a
// dataset permission on the item (download unless the approver names
// another level; a higher grant the requester holds stays) and notifies
// them (item.access_approved), or decline one, which notifies them too
// (item.access_declined). Answered requests are closed and leave the list.

// defaultApproval is the level an approval grants when the approver names
// none: readers who ask for access to an item they can already see want to
// download it.
const defaultApproval = access.Download

// itemRequestAdmin loads an item whose access requests the caller answers:
// NOT_FOUND when they cannot see it, FORBIDDEN when they see it without
// admin. write selects items:write over catalog.
func (r *Resolver) itemRequestAdmin(ctx context.Context, itemID string, write bool) (permTarget, error) {
	// An id that does not parse stays 0, which names no item: adminTarget
	// answers NOT_FOUND once it has checked the caller.
	id, _ := ParseItemID(itemID)
	return r.adminTarget(ctx, DatasetTypeCatalogItem, id, write)
}

// outstandingItemRequestByID returns an outstanding request for access to
// item itemID, NOT_FOUND for any other.
func outstandingItemRequestByID(ctx context.Context, c *ent.Client, itemID, requestID int) (*ent.DatasetAccessRequest, error) {
	ar, err := c.DatasetAccessRequest.Query().Where(datasetaccessrequest.ID(requestID),
		datasetaccessrequest.DatasetKind(datasetKindItem), datasetaccessrequest.DatasetID(itemID),
		datasetaccessrequest.StatusEQ(datasetaccessrequest.StatusOutstanding)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Access request %d not found.", requestID)
	}
	return ar, err
}

// closeItemRequest closes an outstanding request with status and tells the
// requester (notification kind) inside tx. A request answered meanwhile is
// NOT_FOUND, so two approvers never both act on it.
func (r *Resolver) closeItemRequest(ctx context.Context, tx *ent.Client, ar *ent.DatasetAccessRequest,
	status datasetaccessrequest.Status, kind string, payload map[string]any) error {
	n, err := tx.DatasetAccessRequest.Update().Where(datasetaccessrequest.ID(ar.ID),
		datasetaccessrequest.StatusEQ(datasetaccessrequest.StatusOutstanding)).
		SetStatus(status).SetClosedAt(nowUTC()).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.New(apperr.NotFound, "Access request %d not found.", ar.ID)
	}
	payload["item_id"], payload["request_id"] = ItemPublicID(ar.DatasetID), ar.ID
	return r.notify(ctx, tx, ar.UserID, kind, payload)
}
