package graph

import (
	"context"
	"fmt"
	"strconv"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
)

// Change feed pages: DefaultChangePage events unless asked, at most
// MaxChangePage.
const (
	DefaultChangePage = 100
	MaxChangePage     = 200
)

// changeQuery checks a read of the change feed and turns its arguments
// into a changefeed.Query: the catalogue's feed needs the catalog scope,
// a dataset's the read scope of its type and a dataset the caller may
// see.
func (r *Resolver) changeQuery(ctx context.Context, after *string, first *int, dataset *ChangeDatasetInput, types []string) (changefeed.Query, error) {
	var q changefeed.Query
	if after != nil {
		n, err := changefeed.ParseCursor(*after)
		if err != nil {
			return q, apperr.Field("after", err.Error())
		}
		q.After = n
	}
	q.Limit = DefaultChangePage
	if first != nil {
		if *first < 1 || *first > MaxChangePage {
			return q, apperr.Field("first", fmt.Sprintf("Give a page size from 1 to %d.", MaxChangePage))
		}
		q.Limit = *first
	}
	for _, t := range types {
		if !changefeed.KnownType(t) {
			return q, apperr.Field("types", fmt.Sprintf("%q is not an event type: give any of %v.", t, changefeed.Types))
		}
	}
	q.Types = types
	if dataset == nil {
		return q, access.RequireScope(ctx, auth.ScopeCatalog)
	}
	if dataset.Type == DatasetTypeSource {
		return q, apperr.Field("dataset", "Sources have no change feed: give a layer, table, set, document or catalog item.")
	}
	read, _ := datasetScopes(dataset.Type)
	if err := access.RequireScope(ctx, read); err != nil {
		return q, err
	}
	target, err := r.datasetTarget(ctx, dataset.Type, dataset.ID, read)
	if err != nil {
		return q, err
	}
	q.Dataset = &changefeed.Ref{Kind: target.kind, ID: target.id}
	return q, nil
}

// changeViewer resolves the caller for a read of the feed, afresh.
func (r *Resolver) changeViewer(ctx context.Context) (*access.Viewer, error) {
	return access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
}

// ChangePageOf renders a page of the feed.
func ChangePageOf(p changefeed.Page) *ChangePage {
	out := &ChangePage{Events: make([]*changefeed.Event, len(p.Events)), Next: strconv.FormatInt(p.Next, 10), TotalCount: p.Total}
	for i := range p.Events {
		out.Events[i] = &p.Events[i]
	}
	return out
}

// changeDatasetTypes maps the feed's dataset types onto the API's.
var changeDatasetTypes = map[string]DatasetType{
	"layer": DatasetTypeLayer, "table": DatasetTypeTable, "set": DatasetTypeSet,
	"document": DatasetTypeDocument, "item": DatasetTypeCatalogItem,
}
