package graph

import (
	"context"
	"strings"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/paging"
)

// ScanSorts are the values of the scans list's sort (a leading - sorts
// descending).
var ScanSorts = []string{"id", "-id", "started_at", "-started_at", "completed_at", "-completed_at"}

// scanOrder is the order of a scans sort; ties go newest first.
func scanOrder(sort *string) ([]scan.OrderOption, error) {
	s := "-id"
	if sort != nil && *sort != "" {
		s = *sort
	}
	field, desc := strings.CutPrefix(s, "-")
	dir := entsql.OrderAsc()
	if desc {
		dir = entsql.OrderDesc()
	}
	tie := scan.ByID(entsql.OrderDesc())
	switch field {
	case "id":
		return []scan.OrderOption{scan.ByID(dir)}, nil
	case "started_at":
		return []scan.OrderOption{scan.ByStartedAt(dir, entsql.OrderNullsLast()), tie}, nil
	case "completed_at":
		return []scan.OrderOption{scan.ByCompletedAt(dir, entsql.OrderNullsLast()), tie}, nil
	}
	return nil, apperr.Field("sort", "Select a valid choice: "+strings.Join(ScanSorts, ", ")+".")
}

// allScans lists the scans of every source the caller may see the scans
// of (sourceScanLevel), narrowed to statuses.
func (r *Resolver) allScans(ctx context.Context, statuses []scan.Status, sort *string, page, pageSize *int) (*ScanPage, error) {
	if _, err := access.RequireUser(ctx, scopeSourcesRead); err != nil {
		return nil, err
	}
	visible, err := sourceWhere(ctx, r.Client, sourceScanLevel)
	if err != nil {
		return nil, err
	}
	return r.scanPage(ctx, r.Client.Scan.Query().Where(scan.HasSourceWith(visible)), statuses, sort, page, pageSize)
}

// SourceScansFiltered lists one source's scans narrowed to statuses and
// sorted as the scans of every source are (the REST list's status and
// sort, which the Python client's Query.filter and order_by send).
func (r *Resolver) SourceScansFiltered(ctx context.Context, sourceID int, statuses []scan.Status, sort *string, page, pageSize *int) (*ScanPage, error) {
	if _, err := r.loadSource(ctx, sourceID, scopeSourcesRead, sourceScanLevel); err != nil {
		return nil, err
	}
	return r.scanPage(ctx, r.Client.Scan.Query().Where(scan.SourceID(sourceID)), statuses, sort, page, pageSize)
}

// scanPage is one page of q's scans in statuses, in sort's order.
func (r *Resolver) scanPage(ctx context.Context, q *ent.ScanQuery, statuses []scan.Status, sort *string, page, pageSize *int) (*ScanPage, error) {
	order, err := scanOrder(sort)
	if err != nil {
		return nil, err
	}
	pg, err := paging.New(page, pageSize, paging.MaxSize)
	if err != nil {
		return nil, err
	}
	if len(statuses) > 0 {
		q = q.Where(scan.StatusIn(statuses...))
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	items, err := q.Order(order...).Offset(pg.Offset()).Limit(pg.Size).All(ctx)
	if err != nil {
		return nil, err
	}
	return &ScanPage{Items: items, PageInfo: &PageInfoOffset{Page: pg.Number, PageSize: pg.Size, Total: total}}, nil
}
