package accounts

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/audit"
)

// userTarget names user u in the audit log.
func userTarget(u *ent.User) audit.Target {
	return audit.Target{Type: "user", ID: strconv.Itoa(u.ID), Label: u.Email}
}

// recordUser writes the audit entry of action (user.lock, user.unlock,
// user.delete, user.password) on u through c, the change's transaction.
func recordUser(ctx context.Context, c *ent.Client, action string, u *ent.User, before, after map[string]any) error {
	return audit.Record(ctx, c, audit.Entry{Action: action, Target: userTarget(u), Before: before, After: after})
}

// recordSessionsEnded writes the session.end entry of ending sessions of
// user userID (ids, or how many when ids is nil) through c.
func recordSessionsEnded(ctx context.Context, c *ent.Client, userID int, what map[string]any) error {
	return audit.Record(ctx, c, audit.Entry{Action: "session.end",
		Target: audit.Target{Type: "session", ID: "", Label: "user " + strconv.Itoa(userID)},
		Before: map[string]any{"user_id": userID}, After: what})
}
