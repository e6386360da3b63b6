package sso

import (
	"context"
	"slices"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/audit"
)

// rank orders the membership levels.
var rank = map[groupmembership.Permission]int{
	groupmembership.PermissionMember: 1, groupmembership.PermissionEditData: 2,
	groupmembership.PermissionEditUsers: 3, groupmembership.PermissionAdmin: 4,
}

// applyGroups makes the user's memberships follow the groups claim, for
// the groups the provider's mapping names only. A mapped group the claim
// lists gets a membership with the highest role its values map to; when
// the user was already a member of it by other means, that membership is
// left as it is and not counted as granted. A membership this provider
// granted (granted, from the link) whose group the claim no longer lists
// is removed. It returns the groups now granted. Without a groups claim
// setting it changes nothing.
func (s *Service) applyGroups(ctx context.Context, tx *ent.Client, p *provider, id *identity, userID int, granted []int) ([]int, error) {
	if p.cfg.GroupsClaim == "" {
		return granted, nil
	}
	want := map[string]groupmembership.Permission{} // group slug -> role
	for _, m := range p.cfg.Groups {
		if !slices.Contains(id.Groups, m.ClaimValue) {
			continue
		}
		role := groupmembership.Permission(m.Role)
		if rank[role] > rank[want[m.Group]] {
			want[m.Group] = role
		}
	}
	slugs := make([]string, 0, len(want))
	for slug := range want {
		slugs = append(slugs, slug)
	}
	groups, err := tx.Group.Query().Where(group.URLSlugIn(slugs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	if len(groups) < len(slugs) {
		s.logger.WarnContext(ctx, "oidc groups mapping names groups that do not exist", "provider", p.cfg.Name,
			"wanted", len(slugs), "found", len(groups))
	}
	var now []int
	keep := map[int]bool{}
	for _, g := range groups {
		role := want[g.URLSlug]
		m, err := tx.GroupMembership.Query().
			Where(groupmembership.GroupID(g.ID), groupmembership.UserID(userID)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			if err := tx.GroupMembership.Create().SetGroupID(g.ID).SetUserID(userID).SetPermission(role).Exec(ctx); err != nil {
				return nil, err
			}
			if err := audit.Membership(ctx, tx, g.ID, g.Name, userID, "", string(role)); err != nil {
				return nil, err
			}
		case err != nil:
			return nil, err
		case !slices.Contains(granted, g.ID):
			continue // a membership given by other means: not ours to manage
		case m.Permission != role:
			if err := tx.GroupMembership.UpdateOne(m).SetPermission(role).Exec(ctx); err != nil {
				return nil, err
			}
			if err := audit.Membership(ctx, tx, g.ID, g.Name, userID, string(m.Permission), string(role)); err != nil {
				return nil, err
			}
		}
		now = append(now, g.ID)
		keep[g.ID] = true
	}
	var gone []int
	for _, gid := range granted {
		if !keep[gid] {
			gone = append(gone, gid)
		}
	}
	if len(gone) > 0 {
		left, err := tx.GroupMembership.Query().WithGroup().
			Where(groupmembership.UserID(userID), groupmembership.GroupIDIn(gone...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, m := range left {
			if err := tx.GroupMembership.DeleteOne(m).Exec(ctx); err != nil {
				return nil, err
			}
			if err := audit.Membership(ctx, tx, m.GroupID, m.Edges.Group.Name, userID, string(m.Permission), ""); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(now)
	return now, nil
}
