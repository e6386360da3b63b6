package rest

import (
	"net/http"
	"time"

	"github.com/geopub/geopub/ent/publishgroup"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/graph"
)

// scanStatuses are the values of the scans list's status filter.
var scanStatuses = []string{"queued", "scanning", "completed", "failed", "cancelled"}

// listAllScans is GET /sources/scans/: the scans of every source the
// caller may scan, newest first (sort: id, started_at, completed_at, - for
// descending), filtered by status.
func (a *API) listAllScans(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	page, size, err := q.paging()
	if err != nil {
		return err
	}
	f, err := scanFilter(q)
	if err != nil {
		return err
	}
	p, err := a.res.AllScansFiltered(r.Context(), f, page, size)
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]scanJSON, 0, len(p.Items))
	for _, sc := range p.Items {
		out = append(out, l.scan(sc))
	}
	a.writePage(w, r, pageResult{page: p.PageInfo.Page, size: p.PageInfo.PageSize, total: p.PageInfo.Total, count: len(out)}, nil, out)
	return nil
}

// scanFilter reads a scans list's filters: status (repeatable), the
// started_at and completed_at bounds (.after, .before, as the catalogue's
// created_at ones) and sort.
func scanFilter(q query) (graph.ScanFilter, error) {
	f := graph.ScanFilter{Sort: q.strPtr("sort")}
	sts, err := q.oneOf("status", scanStatuses...)
	if err != nil {
		return f, err
	}
	for _, s := range sts {
		f.Statuses = append(f.Statuses, scan.Status(s))
	}
	for name, dst := range map[string]**time.Time{
		"started_at.after": &f.StartedAfter, "started_at.before": &f.StartedBefore,
		"completed_at.after": &f.CompletedAfter, "completed_at.before": &f.CompletedBefore,
	} {
		if *dst, err = parseTime(name, q.v.Get(name)); err != nil {
			return f, err
		}
	}
	return f, nil
}

// publishStates are the values of the publish list's state filter.
var publishStates = []string{"publishing", "completed", "failed", "cancelled"}

// listPublish is GET /publish/: the publish groups the caller started
// (every one for site administrators), newest first, filtered by state
// and reference.
func (a *API) listPublish(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	page, size, err := q.paging()
	if err != nil {
		return err
	}
	sts, err := q.oneOf("state", publishStates...)
	if err != nil {
		return err
	}
	states := make([]publishgroup.State, 0, len(sts))
	for _, s := range sts {
		states = append(states, publishgroup.State(s))
	}
	p, err := a.res.Query().PublishGroups(r.Context(), states, q.strPtr("reference"), page, size)
	if err != nil {
		return err
	}
	vs, err := a.res.PublishVersions(r.Context(), p.Items)
	if err != nil {
		return err
	}
	out := make([]publishJSON, 0, len(p.Items))
	for _, g := range p.Items {
		js, err := a.renderPublishWith(r, g, false, vs)
		if err != nil {
			return err
		}
		out = append(out, js)
	}
	a.writePage(w, r, pageResult{page: p.PageInfo.Page, size: p.PageInfo.PageSize, total: p.PageInfo.Total, count: len(out)}, nil, out)
	return nil
}
