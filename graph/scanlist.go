package graph

import (
	"context"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
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

// ScanFilter narrows a scans list to statuses (any of them) and to scans
// started or completed after or before a time (each bound exclusive);
// Sort orders it (one of ScanSorts, newest first when nil).
type ScanFilter struct {
	Statuses                        []scan.Status
	StartedAfter, StartedBefore     *time.Time
	CompletedAfter, CompletedBefore *time.Time
	Sort                            *string
}

func (f ScanFilter) apply(q *ent.ScanQuery) *ent.ScanQuery {
	if len(f.Statuses) > 0 {
		q = q.Where(scan.StatusIn(f.Statuses...))
	}
	if f.StartedAfter != nil {
		q = q.Where(scan.StartedAtGT(*f.StartedAfter))
	}
	if f.StartedBefore != nil {
		q = q.Where(scan.StartedAtLT(*f.StartedBefore))
	}
	if f.CompletedAfter != nil {
		q = q.Where(scan.CompletedAtGT(*f.CompletedAfter))
	}
	if f.CompletedBefore != nil {
		q = q.Where(scan.CompletedAtLT(*f.CompletedBefore))
	}
	return q
}

// AllScansFiltered lists the scans of every source the caller may see the
// scans of (sourceScanLevel), narrowed by f.
func (r *Resolver) AllScansFiltered(ctx context.Context, f ScanFilter, page, pageSize *int) (*ScanPage, error) {
	if _, err := access.RequireUser(ctx, auth.ScopeSourcesRead); err != nil {
		return nil, err
	}
	visible, err := sourceWhere(ctx, r.Client, sourceScanLevel)
	if err != nil {
		return nil, err
	}
	return r.scanPage(ctx, r.Client.Scan.Query().Where(scan.HasSourceWith(visible)), f, page, pageSize)
}

// SourceScansFiltered lists one source's scans narrowed by f, as the scans
// of every source are (the REST lists' filters and sort, which the Python
// client's Query.filter and order_by send).
func (r *Resolver) SourceScansFiltered(ctx context.Context, sourceID int, f ScanFilter, page, pageSize *int) (*ScanPage, error) {
	if _, err := r.loadSource(ctx, sourceID, auth.ScopeSourcesRead, sourceScanLevel); err != nil {
		return nil, err
	}
	return r.scanPage(ctx, r.Client.Scan.Query().Where(scan.SourceID(sourceID)), f, page, pageSize)
}

// scanPage is one page of q's scans narrowed by f, in its order.
func (r *Resolver) scanPage(ctx context.Context, q *ent.ScanQuery, f ScanFilter, page, pageSize *int) (*ScanPage, error) {
	order, err := scanOrder(f.Sort)
	if err != nil {
		return nil, err
	}
	pg, err := paging.New(page, pageSize, paging.MaxSize)
	if err != nil {
		return nil, err
	}
	q = f.apply(q)
	items, info, err := listPage[*ent.ScanQuery](ctx, q.Order(order...), pg)
	if err != nil {
		return nil, err
	}
	return &ScanPage{Items: items, PageInfo: info}, nil
}
