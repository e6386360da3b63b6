package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/paging"
)

// offsetQuery is what an Ent query of entities T offers for a numbered
// page: every generated XQuery type has these methods.
type offsetQuery[Q any, T any] interface {
	Clone() Q
	Count(context.Context) (int, error)
	Offset(int) Q
	Limit(int) Q
	All(context.Context) ([]T, error)
}

// listPage reads page pg of what q matches, in q's order, and the total it
// matches: the offset paging every list of the API shares.
func listPage[Q offsetQuery[Q, T], T any](ctx context.Context, q Q, pg paging.Page) ([]T, *PageInfoOffset, error) {
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, nil, err
	}
	items, err := q.Offset(pg.Offset()).Limit(pg.Size).All(ctx)
	if err != nil {
		return nil, nil, err
	}
	return items, &PageInfoOffset{Page: pg.Number, PageSize: pg.Size, Total: total}, nil
}

// datasetPage is listPage for a list of one dataset kind's datasets: it
// also primes the request's loaders with the page's creators and owning
// groups (owner) and its datasets (register), which the fields of a list
// read.
func datasetPage[Q offsetQuery[Q, *D], D any](ctx context.Context, c *ent.Client, q Q, pg paging.Page, owner func(*D) (int, *int), register func([]*D)) ([]*D, *PageInfoOffset, error) {
	items, info, err := listPage[Q](ctx, q, pg)
	if err != nil {
		return nil, nil, err
	}
	if err := primePeople(ctx, c, items, owner); err != nil {
		return nil, nil, err
	}
	register(items)
	return items, info, nil
}
