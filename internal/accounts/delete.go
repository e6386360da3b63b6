package accounts

import (
	"context"
	"database/sql"
	"errors"
	"net/http"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/blob"
)

// Deleted reports what a deletion did.
type Deleted struct {
	UserID   int
	Receiver Receiver
	// Transferred counts the datasets and sources the receiver took, by
	// kind (layer, set, document, catalog_item, source).
	Transferred map[string]int
}

// MsgAccountDeleted is why a deleted user's open streams ended.
const MsgAccountDeleted = "The account has been deleted."

// Delete deletes user id (site administrators only), in one transaction:
// their layers and tables, sets, documents, catalog items and sources
// pass to the receiver with the grants the user held on them (see
// transfer); what was the user's alone (tokens, sessions, memberships,
// access requests, notifications, follows, stars, exports, personal
// webhooks) is deleted. A receiver is required when the user owns any
// dataset or source. Deleting oneself, or the last site administrator,
// is refused. Once committed, the user's open streams on this process end
// at once (other processes: at their next recheck) and the files of their
// exports are removed.
func (s *Service) Delete(ctx context.Context, id int, to Receiver) (*Deleted, error) {
	me, err := access.RequireSiteAdmin(ctx, auth.ScopeUsersWrite)
	if err != nil {
		return nil, err
	}
	var blobs []string
	var done *Deleted
	err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		u, err := c.User.Get(ctx, id)
		if ent.IsNotFound(err) {
			return userNotFound(id)
		}
		if err != nil {
			return err
		}
		if err := refuseDeleting(ctx, c, me, u); err != nil {
			return err
		}
		if err := to.check(ctx, c, id); err != nil {
			return err
		}
		t := transfer{c: c, from: id, to: to, creator: to.UserID}
		if to.UserID == 0 {
			// A group cannot be a creator: the administrator who
			// handed the datasets over stands in.
			t.creator = me.ID
		}
		owned, err := t.owned(ctx)
		if err != nil {
			return err
		}
		if owned > 0 && to.None() {
			return apperr.Field(receiverField, "This user owns datasets or sources: give a receiver (user.{id} or group.{id}) to take them.")
		}
		moved, err := t.run(ctx)
		if err != nil {
			return err
		}
		if blobs, err = deletePersonal(ctx, c, id); err != nil {
			return err
		}
		if err := c.User.DeleteOneID(id).Exec(ctx); err != nil {
			return err
		}
		if err := recordUser(ctx, c, "user.delete", u, map[string]any{"email": u.Email},
			map[string]any{"receiver": to.String(), "transferred": moved}); err != nil {
			return err
		}
		done = &Deleted{UserID: id, Receiver: to, Transferred: moved}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Auth.EndUserStreams(id, &auth.Revoked{Status: http.StatusUnauthorized, Detail: MsgAccountDeleted})
	s.removeBlobs(ctx, blobs)
	return done, nil
}

// refuseDeleting refuses deleting the last site administrator, then
// deleting oneself.
func refuseDeleting(ctx context.Context, c *ent.Client, me, u *ent.User) error {
	if u.IsSiteAdmin {
		others, err := c.User.Query().Where(user.IsSiteAdmin(true), user.IDNEQ(u.ID)).Count(ctx)
		if err != nil {
			return err
		}
		if others == 0 {
			return apperr.New(apperr.Conflict, "User %d is the last site administrator and cannot be deleted.", u.ID)
		}
	}
	if me.ID == u.ID {
		return apperr.New(apperr.Invalid, "You cannot delete your own account.")
	}
	return nil
}

// removeBlobs deletes the files of a deleted user's exports; a failure is
// logged (the rows are gone, the file is an orphan for the operator).
func (s *Service) removeBlobs(ctx context.Context, keys []string) {
	if s.Blobs == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, k := range keys {
		if err := s.Blobs.Delete(ctx, k); err != nil && !errors.Is(err, blob.ErrNotFound) {
			s.Logger.WarnContext(ctx, "deleting the file of a deleted user's export", "key", k, "err", err)
		}
	}
}
