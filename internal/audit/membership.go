package audit

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
)

// Membership records the change of userID's membership of group (id and
// name) through c, the change's transaction: membership.add when before is
// empty, membership.remove when after is empty, else membership.change;
// before and after are the roles.
func Membership(ctx context.Context, c *ent.Client, groupID int, groupName string, userID int, before, after string) error {
	action := "membership.change"
	switch {
	case before == "":
		action = "membership.add"
	case after == "":
		action = "membership.remove"
	}
	fields := func(role string) map[string]any {
		if role == "" {
			return nil
		}
		return map[string]any{"user_id": userID, "permission": role}
	}
	return Record(ctx, c, Entry{Action: action,
		Target: Target{Type: "group", ID: strconv.Itoa(groupID), Label: groupName},
		Before: fields(before), After: fields(after), Groups: []int{groupID}})
}
