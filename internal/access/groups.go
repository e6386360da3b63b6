package access

import (
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/auth"
)

// Group permission levels in order: each includes the ones before it.
var groupRank = map[groupmembership.Permission]int{
	groupmembership.PermissionMember:    1,
	groupmembership.PermissionEditData:  2,
	groupmembership.PermissionEditUsers: 3,
	groupmembership.PermissionAdmin:     4,
}

// AtLeast reports whether have (nil: not a member) includes want.
func AtLeast(have *groupmembership.Permission, want groupmembership.Permission) bool {
	return have != nil && groupRank[*have] >= groupRank[want]
}

// CanManageMembers reports whether p may see and change a group's members
// and access requests: site administrators, and members holding edit_users
// or admin. have is p's permission in the group, nil when not a member.
func CanManageMembers(p auth.Principal, have *groupmembership.Permission) bool {
	return p.IsSiteAdmin() || AtLeast(have, groupmembership.PermissionEditUsers)
}

// CanGrant reports whether p may give or take away level grant in a group:
// admin can be granted or changed only by group admins and site
// administrators; the other levels by anyone who manages members.
func CanGrant(p auth.Principal, have *groupmembership.Permission, grant groupmembership.Permission) bool {
	if !CanManageMembers(p, have) {
		return false
	}
	if grant == groupmembership.PermissionAdmin {
		return p.IsSiteAdmin() || AtLeast(have, groupmembership.PermissionAdmin)
	}
	return true
}
