package graph

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/accessrequest"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// loadGroup returns a group by id, NOT_FOUND when absent.
func (r *Resolver) loadGroup(ctx context.Context, c *ent.Client, id int) (*ent.Group, error) {
	g, err := c.Group.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Group %d not found.", id)
	}
	return g, err
}

// groupCaller is the signed-in caller looking at one group.
type groupCaller struct {
	p     auth.Principal
	group *ent.Group
	// perm is the caller's permission in the group, nil when not a member.
	perm *groupmembership.Permission
}

// canManage reports whether the caller may see and change members.
func (gc groupCaller) canManage() bool { return access.CanManageMembers(gc.p, gc.perm) }

// callerInGroup authenticates the caller for scope and loads the group and
// the caller's permission in it.
func (r *Resolver) callerInGroup(ctx context.Context, groupID int, scope string) (groupCaller, error) {
	if _, err := access.RequireUser(ctx, scope); err != nil {
		return groupCaller{}, err
	}
	g, err := r.loadGroup(ctx, r.Client, groupID)
	if err != nil {
		return groupCaller{}, err
	}
	p := auth.FromContext(ctx)
	perm, err := loadersFrom(ctx).callerPermission(ctx, r.Client, p.User.ID, g.ID)
	if err != nil {
		return groupCaller{}, err
	}
	return groupCaller{p: p, group: g, perm: perm}, nil
}

// managerOf is callerInGroup for operations that need member management.
func (r *Resolver) managerOf(ctx context.Context, groupID int, scope string) (groupCaller, error) {
	gc, err := r.callerInGroup(ctx, groupID, scope)
	if err != nil {
		return gc, err
	}
	if !gc.canManage() {
		return gc, apperr.ErrForbidden
	}
	return gc, nil
}

// securityPredicates turns security filters into user predicates. negate
// allows a leading - (access-request lists only).
func securityPredicates(filters []string, negate bool) ([]predicate.User, error) {
	var preds []predicate.User
	for _, f := range filters {
		name, neg := f, false
		if negate && strings.HasPrefix(f, "-") {
			name, neg = f[1:], true
		}
		var p predicate.User
		switch name {
		case "mfa":
			p = user.MfaEnabled(!neg)
		case "remote_auth":
			p = user.RemoteAuth(!neg)
		case "verified":
			p = user.EmailVerified(!neg)
		default:
			allowed := "mfa, remote_auth or verified"
			if negate {
				allowed += ", optionally with a leading -"
			}
			return nil, apperr.Field("security", fmt.Sprintf("Unknown value %q: use %s.", f, allowed))
		}
		preds = append(preds, p)
	}
	return preds, nil
}

var slugUnsafe = regexp.MustCompile(`[^a-z0-9]+`)

// slugify derives a url_slug from a name.
func slugify(name string) string {
	s := strings.Trim(slugUnsafe.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		s = "group"
	}
	if len(s) > 180 {
		s = strings.TrimRight(s[:180], "-")
	}
	return s
}

// uniqueSlug returns base, or base-N for the smallest N not taken.
func uniqueSlug(ctx context.Context, c *ent.Client, base string) (string, error) {
	taken, err := c.Group.Query().
		Where(group.Or(group.URLSlug(base), group.URLSlugHasPrefix(base+"-"))).
		Select(group.FieldURLSlug).Strings(ctx)
	if err != nil {
		return "", err
	}
	used := map[string]bool{}
	for _, s := range taken {
		used[s] = true
	}
	if !used[base] {
		return base, nil
	}
	for n := 2; ; n++ {
		if s := fmt.Sprintf("%s-%d", base, n); !used[s] {
			return s, nil
		}
	}
}

// outstandingRequest returns the outstanding request of a user to a group,
// NOT_FOUND when there is none.
func outstandingRequest(ctx context.Context, c *ent.Client, groupID, userID int) (*ent.AccessRequest, error) {
	ar, err := c.AccessRequest.Query().
		Where(accessrequest.GroupID(groupID), accessrequest.UserID(userID), accessrequest.StatusEQ(accessrequest.StatusOutstanding)).
		First(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "No outstanding access request.")
	}
	return ar, err
}

// isMember reports whether a user belongs to a group.
func isMember(ctx context.Context, c *ent.Client, groupID, userID int) (bool, error) {
	return c.GroupMembership.Query().
		Where(groupmembership.GroupID(groupID), groupmembership.UserID(userID)).
		Exist(ctx)
}

// alreadyMember is the conflict the specification gives when a user
// already belongs to the group.
func alreadyMember(userID int) error {
	return apperr.New(apperr.Conflict, "User %d already belongs to this group.", userID)
}

// notify publishes a notification for a user through c (a transaction's
// client, so it commits with the change it reports).
func (r *Resolver) notify(ctx context.Context, c *ent.Client, userID int, kind string, payload map[string]any) error {
	_, err := r.Notify.Publish(ctx, c, userID, kind, payload)
	return err
}
