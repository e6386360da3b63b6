package graph

import (
	"context"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/publishgroup"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/paging"
)

// publishGroups lists the publish groups the caller may see (those they
// started; every one for site administrators, as loadPublishGroup),
// newest first, narrowed to states and a reference.
func (r *Resolver) publishGroups(ctx context.Context, states []publishgroup.State, reference *string, page, pageSize *int) (*PublishGroupPage, error) {
	u, err := access.RequireUser(ctx, auth.ScopeLayersRead)
	if err != nil {
		return nil, err
	}
	pg, err := paging.New(page, pageSize, paging.MaxSize)
	if err != nil {
		return nil, err
	}
	q := r.Client.PublishGroup.Query()
	if !u.IsSiteAdmin {
		q = q.Where(publishgroup.CreatedBy(u.ID))
	}
	if len(states) > 0 {
		q = q.Where(publishgroup.StateIn(states...))
	}
	if reference != nil {
		q = q.Where(publishgroup.Reference(*reference))
	}
	items, info, err := listPage[*ent.PublishGroupQuery](ctx, q.Order(publishgroup.ByID(entsql.OrderDesc())), pg)
	if err != nil {
		return nil, err
	}
	return &PublishGroupPage{Items: items, PageInfo: info}, nil
}
