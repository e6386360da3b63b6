package graph

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/audit"
)

// recordMembership writes the audit entry of a membership change of userID
// in g through c, the change's transaction: membership.add (before nil),
// membership.remove (after nil) or membership.change.
func recordMembership(ctx context.Context, c *ent.Client, g *ent.Group, userID int, before, after *groupmembership.Permission) error {
	action := "membership.change"
	switch {
	case before == nil:
		action = "membership.add"
	case after == nil:
		action = "membership.remove"
	}
	fields := func(p *groupmembership.Permission) map[string]any {
		if p == nil {
			return nil
		}
		return map[string]any{"user_id": userID, "permission": string(*p)}
	}
	return audit.Record(ctx, c, audit.Entry{Action: action,
		Target: audit.Target{Type: "group", ID: strconv.Itoa(g.ID), Label: g.Name},
		Before: fields(before), After: fields(after), Groups: []int{g.ID}})
}

// leaveGroup removes userID's own membership of g, recording it; leaving
// a group one is not in changes nothing.
func (r *Resolver) leaveGroup(ctx context.Context, c *ent.Client, g *ent.Group, userID int) error {
	m, err := c.GroupMembership.Query().
		Where(groupmembership.GroupID(g.ID), groupmembership.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.GroupMembership.DeleteOneID(m.ID).Exec(ctx); err != nil {
		return err
	}
	return recordMembership(ctx, c, g, userID, &m.Permission, nil)
}

// recordVersionDelete writes the version.delete entry of version
// versionID of a dataset (typ: layer, table, set, document, item) through
// c, the deletion's transaction.
func recordVersionDelete(ctx context.Context, c *ent.Client, typ, id, label string, group *int, versionID int) error {
	e := audit.Entry{Action: "version.delete", Target: audit.Target{Type: typ, ID: id, Label: label},
		Before: map[string]any{"version_id": versionID, "state": "draft"}, After: map[string]any{"version_id": versionID, "state": "deleted"}}
	if group != nil {
		e.Groups = []int{*group}
	}
	return audit.Record(ctx, c, e)
}

// auditID renders an entity id as audit targets name it.
func auditID(id int) string { return strconv.Itoa(id) }
