package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
)

// Redaction keeps the private parts of an entity from callers who may see
// the entity but not them. Every value of these types that a GraphQL field
// returns passes through redact (guardFields), and the resolvers the REST
// adapter calls return redacted values, so no path serves more:
//
//   - a user's e-mail address only to the user, to site administrators and
//     to those who manage a group the user belongs to (edit_users or
//     admin), exactly who may look the user up (Query.user, GET
//     /users/{id}); others see names only, as REST embeds show;
//   - a source's URL, options and scan schedule only to those who hold edit
//     on it;
//   - a datasource's path, layer name, metadata path and file size only to
//     those who may view its source; those who only see a layer made from it
//     keep its title, format and shape.

// redact returns v with what the caller may not see of it removed: users,
// sources and datasources, alone or in lists.
func (r *Resolver) redact(ctx context.Context, v any) (any, error) {
	switch x := v.(type) {
	case *ent.User:
		return r.redactUser(ctx, x)
	case []*ent.User:
		return redactAll(ctx, x, r.redactUser)
	case *ent.Source:
		return r.redactSource(ctx, x)
	case []*ent.Source:
		return redactAll(ctx, x, r.redactSource)
	case *ent.Datasource:
		return r.redactDatasource(ctx, x)
	case []*ent.Datasource:
		return redactAll(ctx, x, r.redactDatasource)
	}
	return v, nil
}

func redactAll[T any](ctx context.Context, xs []*T, f func(context.Context, *T) (*T, error)) ([]*T, error) {
	out := make([]*T, len(xs))
	for i, x := range xs {
		var err error
		if out[i], err = f(ctx, x); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// redactUser blanks the e-mail address of a user the caller may not look
// up.
func (r *Resolver) redactUser(ctx context.Context, u *ent.User) (*ent.User, error) {
	if u == nil {
		return nil, nil
	}
	ok, err := r.mayLookUpUser(ctx, u.ID)
	if err != nil || ok {
		return u, err
	}
	c := *u
	c.Email = ""
	return &c, nil
}

// mayLookUpUser is visibleUser's rule for many users: one query per
// request for the members of the groups the caller manages.
func (r *Resolver) mayLookUpUser(ctx context.Context, id int) (bool, error) {
	p := auth.FromContext(ctx)
	switch {
	case !p.Authenticated():
		return false, nil
	case p.IsSiteAdmin() || p.User.ID == id:
		return true, nil
	}
	managed, err := loadersFrom(ctx).managedUsers(func() (map[int]bool, error) {
		var ids []int
		err := r.Client.GroupMembership.Query().
			Where(groupmembership.HasGroupWith(group.HasMembershipsWith(
				groupmembership.UserID(p.User.ID),
				groupmembership.PermissionIn(groupmembership.PermissionEditUsers, groupmembership.PermissionAdmin)))).
			Select(groupmembership.FieldUserID).Scan(ctx, &ids)
		set := map[int]bool{}
		for _, id := range ids {
			set[id] = true
		}
		return set, err
	})
	return managed[id], err
}

// redactSource blanks the URL, options and schedule of a source the caller
// does not edit.
func (r *Resolver) redactSource(ctx context.Context, s *ent.Source) (*ent.Source, error) {
	if s == nil {
		return nil, nil
	}
	lv, err := r.sourceLevel(ctx, s)
	if err != nil || lv >= access.Edit {
		return s, err
	}
	c := *s
	c.URLRemote, c.Folders, c.Schemas, c.ScanSchedule, c.SslVerify = "", nil, nil, "", true
	c.Username, c.Password = "", ""
	return &c, nil
}

// redactDatasource blanks where a datasource lies for callers who may not
// view its source.
func (r *Resolver) redactDatasource(ctx context.Context, d *ent.Datasource) (*ent.Datasource, error) {
	if d == nil {
		return nil, nil
	}
	sourceID, err := r.datasourceSourceID(ctx, d)
	if err != nil {
		return nil, err
	}
	lv, err := r.sourceLevelByID(ctx, sourceID)
	if err != nil || lv >= access.View {
		return d, err
	}
	c := *d
	c.Path, c.LayerName, c.MetadataPath, c.FileSize = "", "", "", 0
	return &c, nil
}

// datasourceSourceID returns the source of a datasource, looked up when
// GraphQL field collection left the column out of d.
func (r *Resolver) datasourceSourceID(ctx context.Context, d *ent.Datasource) (int, error) {
	if d.SourceID != 0 {
		return d.SourceID, nil
	}
	id, err := r.Client.Datasource.Query().Where(datasource.ID(d.ID)).Select(datasource.FieldSourceID).Int(ctx)
	if ent.IsNotFound(err) {
		return 0, nil
	}
	return id, err
}
