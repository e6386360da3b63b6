package graph

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/audit"
)

// recordMembership writes the audit entry of a membership change of userID
// in g through c, the change's transaction (audit.Membership): before nil
// for an add, after nil for a removal.
func recordMembership(ctx context.Context, c *ent.Client, g *ent.Group, userID int, before, after *groupmembership.Permission) error {
	role := func(p *groupmembership.Permission) string {
		if p == nil {
			return ""
		}
		return string(*p)
	}
	return audit.Membership(ctx, c, g.ID, g.Name, userID, role(before), role(after))
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
