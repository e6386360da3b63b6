package graph

import (
	"context"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/paging"
	"github.com/geopub/geopub/internal/textrules"
)

// GroupAdministrators is the special group identifier naming site
// administrators in the user list's group filter. The slugs of the seeded
// groups (default, members) are special identifiers too.
const GroupAdministrators = "administrators"

// visibleUser returns a user the caller may see: themself, anyone for site
// administrators, and members of groups whose members the caller manages.
// Others are NOT_FOUND, so the list of user ids does not leak.
func (r *Resolver) visibleUser(ctx context.Context, id int) (*ent.User, error) {
	me, err := access.RequireUser(ctx, auth.ScopeUsersRead)
	if err != nil {
		return nil, err
	}
	if me.ID == id {
		return me, nil
	}
	notFound := apperr.New(apperr.NotFound, "User %d not found.", id)
	q := r.Client.User.Query().Where(user.ID(id))
	if !auth.FromContext(ctx).IsSiteAdmin() {
		q.Where(user.HasMembershipsWith(groupmembership.HasGroupWith(
			group.HasMembershipsWith(
				groupmembership.UserID(me.ID),
				groupmembership.PermissionIn(groupmembership.PermissionEditUsers, groupmembership.PermissionAdmin),
			),
		)))
	}
	u, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFound
	}
	return u, err
}

// searchUsers runs the user list's filters and paging.
func searchUsers(ctx context.Context, c *ent.Client, in *UserSearchInput) (*UserPage, error) {
	page, err := paging.New(in.Page, in.PageSize, paging.MaxSize)
	if err != nil {
		return nil, err
	}
	if err := textrules.Query("q", in.Q); err != nil {
		return nil, err
	}
	if err := textrules.Filter("group", in.Groups); err != nil {
		return nil, err
	}
	var preds []predicate.User
	if in.SeatType != nil {
		preds = append(preds, user.SeatTypeEQ(*in.SeatType))
	}
	for _, g := range in.Groups {
		p, err := groupFilter(ctx, c, g)
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	if in.Q != nil && strings.TrimSpace(*in.Q) != "" {
		q := strings.ToLower(strings.TrimSpace(*in.Q))
		if strings.Contains(q, "@") {
			preds = append(preds, user.EmailEQ(q))
		} else {
			var any []predicate.User
			for _, t := range strings.Fields(q) {
				any = append(any, user.FirstNameContainsFold(t), user.LastNameContainsFold(t), user.EmailContainsFold(t))
			}
			preds = append(preds, user.Or(any...))
		}
	}
	total, err := c.User.Query().Where(preds...).Count(ctx)
	if err != nil {
		return nil, err
	}
	items, err := c.User.Query().Where(preds...).Order(user.ByID()).
		Offset(page.Offset()).Limit(page.Size).All(ctx)
	if err != nil {
		return nil, err
	}
	return &UserPage{Items: items, PageInfo: &PageInfoOffset{Page: page.Number, PageSize: page.Size, Total: total}}, nil
}

// groupFilter is the predicate "belongs to group g", where g is a group id
// or a special identifier.
func groupFilter(ctx context.Context, c *ent.Client, g string) (predicate.User, error) {
	g = strings.TrimSpace(g)
	if g == GroupAdministrators {
		return user.IsSiteAdmin(true), nil
	}
	if id, err := strconv.Atoi(g); err == nil {
		return user.HasMembershipsWith(groupmembership.GroupID(id)), nil
	}
	exists, err := c.Group.Query().Where(group.URLSlug(g)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if !exists || g == "" {
		return nil, apperr.Field("group", "Unknown group \""+g+"\": give a group id or one of administrators, default, members.")
	}
	return user.HasMembershipsWith(groupmembership.HasGroupWith(group.URLSlug(g))), nil
}
