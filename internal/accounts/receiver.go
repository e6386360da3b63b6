package accounts

import (
	"context"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/apperr"
)

// Receiver is who takes a deleted user's datasets and sources: a user or
// a group (one of the two ids is set), or nobody (both zero).
type Receiver struct {
	UserID  int
	GroupID int
}

// None reports whether no receiver was given.
func (r Receiver) None() bool { return r.UserID == 0 && r.GroupID == 0 }

// String is the receiver as ParseReceiver reads it.
func (r Receiver) String() string {
	switch {
	case r.UserID != 0:
		return "user." + strconv.Itoa(r.UserID)
	case r.GroupID != 0:
		return "group." + strconv.Itoa(r.GroupID)
	}
	return ""
}

// receiverField names the receiver in field errors.
const receiverField = "receiver"

// ParseReceiver reads a receiver as the REST API takes it: user.{id} or
// group.{id}, as grants are named; "" is none.
func ParseReceiver(s string) (Receiver, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Receiver{}, nil
	}
	kind, ref, _ := strings.Cut(s, ".")
	id, err := strconv.Atoi(ref)
	if err != nil || id <= 0 {
		return Receiver{}, apperr.Field(receiverField, "Give the receiver as user.{id} or group.{id}.")
	}
	switch kind {
	case "user":
		return Receiver{UserID: id}, nil
	case "group":
		return Receiver{GroupID: id}, nil
	}
	return Receiver{}, apperr.Field(receiverField, "Give the receiver as user.{id} or group.{id}.")
}

// check makes sure the receiver exists and is not the user being deleted.
func (r Receiver) check(ctx context.Context, c *ent.Client, deleted int) error {
	switch {
	case r.UserID != 0 && r.GroupID != 0:
		return apperr.Field(receiverField, "Give one receiver: a user or a group.")
	case r.UserID == deleted:
		return apperr.Field(receiverField, "The receiver cannot be the user being deleted.")
	case r.UserID != 0:
		ok, err := c.User.Query().Where(user.ID(r.UserID)).Exist(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.Field(receiverField, "User "+strconv.Itoa(r.UserID)+" does not exist.")
		}
	case r.GroupID != 0:
		ok, err := c.Group.Query().Where(group.ID(r.GroupID)).Exist(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.Field(receiverField, "Group "+strconv.Itoa(r.GroupID)+" does not exist.")
		}
	}
	return nil
}
