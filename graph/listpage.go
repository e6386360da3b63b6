package graph

import (
	"context"

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
