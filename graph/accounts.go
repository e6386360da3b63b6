package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/accounts"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// DeleteUserTo deletes a user as the REST door asks it: the receiver given
// as user.{id} or group.{id} (internal/accounts decides the rest).
func (r *Resolver) DeleteUserTo(ctx context.Context, id int, receiver accounts.Receiver) (*accounts.Deleted, error) {
	if err := r.refuseUserAdmin(ctx, id); err != nil {
		return nil, err
	}
	return r.Accounts.Delete(ctx, id, receiver)
}

// refuseUserAdmin answers a caller who is not a site administrator the
// way reading the user would: not found when they may not see the user,
// so lock, unlock and delete do not tell which user ids exist, and
// forbidden when they may. Site administrators pass (internal/accounts
// checks the rest).
func (r *Resolver) refuseUserAdmin(ctx context.Context, id int) error {
	if auth.FromContext(ctx).IsSiteAdmin() {
		return nil
	}
	if _, err := r.visibleUser(ctx, id); err != nil {
		return err
	}
	return apperr.ErrForbidden
}

// deleteUser is the deleteUser mutation: one receiver, a user or a group.
func (r *Resolver) deleteUser(ctx context.Context, id int, in *DeleteUserReceiverInput) (*DeletedUser, error) {
	if err := r.refuseUserAdmin(ctx, id); err != nil {
		return nil, err
	}
	var to accounts.Receiver
	if in != nil {
		if in.User != nil && in.Group != nil {
			return nil, apperr.Field("receiver", "Give one receiver: a user or a group.")
		}
		if in.User != nil {
			to.UserID = *in.User
		}
		if in.Group != nil {
			to.GroupID = *in.Group
		}
	}
	d, err := r.Accounts.Delete(ctx, id, to)
	if err != nil {
		return nil, err
	}
	out := &DeletedUser{ID: d.UserID, Layers: d.Transferred["layer"], Sets: d.Transferred["set"],
		Documents: d.Transferred["document"], CatalogItems: d.Transferred["catalog_item"], Sources: d.Transferred["source"]}
	if s := d.Receiver.String(); s != "" {
		out.Receiver = &s
	}
	return out, nil
}

// lockUser locks or unlocks a user for a site administrator.
func (r *Resolver) lockUser(ctx context.Context, id int, locked bool) (*ent.User, error) {
	if err := r.refuseUserAdmin(ctx, id); err != nil {
		return nil, err
	}
	if locked {
		return r.Accounts.Lock(ctx, id)
	}
	return r.Accounts.Unlock(ctx, id)
}
