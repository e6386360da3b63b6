package graph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/accessrequest"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
)

func nowUTC() time.Time { return time.Now().UTC() }

// applyMemberAction creates, updates or deletes one membership inside a
// transaction, enforcing who may grant what. value is nil for delete.
func (r *Resolver) applyMemberAction(ctx context.Context, c *ent.Client, gc groupCaller, kind GroupPermissionActionKind, userID int, value *GroupMemberInput) (*ent.GroupMembership, error) {
	existing, err := c.GroupMembership.Query().
		Where(groupmembership.GroupID(gc.group.ID), groupmembership.UserID(userID)).
		Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	if existing != nil && !access.CanGrant(gc.p, gc.perm, existing.Permission) {
		return nil, apperr.New(apperr.PermissionDenied, "Only group administrators may change an administrator's permission.")
	}
	if value != nil && !access.CanGrant(gc.p, gc.perm, value.Permission) {
		return nil, apperr.New(apperr.PermissionDenied, "Only group administrators may grant admin.")
	}
	switch kind {
	case GroupPermissionActionKindCreate:
		if existing != nil {
			return nil, alreadyMember(userID)
		}
		exists, err := c.User.Query().Where(user.ID(userID)).Exist(ctx)
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, apperr.Field("user", fmt.Sprintf("User %d does not exist.", userID))
		}
		m, err := c.GroupMembership.Create().
			SetGroupID(gc.group.ID).SetUserID(userID).SetPermission(value.Permission).Save(ctx)
		if ent.IsConstraintError(err) {
			return nil, alreadyMember(userID)
		}
		if err != nil {
			return nil, err
		}
		if err := recordMembership(ctx, c, gc.group, userID, nil, &m.Permission); err != nil {
			return nil, err
		}
		// Joining closes any outstanding request to join.
		if _, err := c.AccessRequest.Update().
			Where(accessrequest.GroupID(gc.group.ID), accessrequest.UserID(userID), accessrequest.StatusEQ(accessrequest.StatusOutstanding)).
			SetStatus(accessrequest.StatusApproved).SetClosedAt(nowUTC()).Save(ctx); err != nil {
			return nil, err
		}
		return r.withMemberEdges(ctx, c, m, gc)
	case GroupPermissionActionKindUpdate:
		if existing == nil {
			return nil, notMember(userID, gc.group.ID)
		}
		m, err := c.GroupMembership.UpdateOneID(existing.ID).SetPermission(value.Permission).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := recordMembership(ctx, c, gc.group, userID, &existing.Permission, &m.Permission); err != nil {
			return nil, err
		}
		return r.withMemberEdges(ctx, c, m, gc)
	case GroupPermissionActionKindDelete:
		if existing == nil {
			return nil, notMember(userID, gc.group.ID)
		}
		if err := c.GroupMembership.DeleteOneID(existing.ID).Exec(ctx); err != nil {
			return nil, err
		}
		return existing, recordMembership(ctx, c, gc.group, userID, &existing.Permission, nil)
	}
	return nil, apperr.Field("action", "Use create, update or delete.")
}

func (r *Resolver) withMemberEdges(ctx context.Context, c *ent.Client, m *ent.GroupMembership, gc groupCaller) (*ent.GroupMembership, error) {
	u, err := c.User.Get(ctx, m.UserID)
	if err != nil {
		return nil, err
	}
	m.Edges.User, m.Edges.Group = u, gc.group
	return m, nil
}

func notMember(userID, groupID int) error {
	return apperr.New(apperr.NotFound, "User %d is not a member of group %d.", userID, groupID)
}

// outstandingByID returns an outstanding access request of a group by id.
func (r *Resolver) outstandingByID(ctx context.Context, c *ent.Client, groupID, requestID int) (*ent.AccessRequest, error) {
	ar, err := c.AccessRequest.Query().
		Where(accessrequest.ID(requestID), accessrequest.GroupID(groupID), accessrequest.StatusEQ(accessrequest.StatusOutstanding)).
		WithUser().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Access request %d not found.", requestID)
	}
	return ar, err
}

// prefixAction names the failing action of a bulk edit in its message.
func prefixAction(err error, i int) error {
	var e *apperr.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Message = fmt.Sprintf("actions[%d]: %s", i, e.Message)
	return &c
}
