package graph

import (
	"context"

	"github.com/geopub/geopub/internal/accounts"
	"github.com/geopub/geopub/internal/apperr"
)

// DeleteUserTo deletes a user as the REST door asks it: the receiver given
// as user.{id} or group.{id} (internal/accounts decides the rest).
func (r *Resolver) DeleteUserTo(ctx context.Context, id int, receiver accounts.Receiver) (*accounts.Deleted, error) {
	return r.Accounts.Delete(ctx, id, receiver)
}

// deleteUser is the deleteUser mutation: one receiver, a user or a group.
func (r *Resolver) deleteUser(ctx context.Context, id int, in *DeleteUserReceiverInput) (*DeletedUser, error) {
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
