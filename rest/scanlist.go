package rest

import (
	"net/http"

	"github.com/geopub/geopub/ent/publishgroup"
	"github.com/geopub/geopub/ent/scan"
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
	statuses, err := scanStatusFilter(q)
	if err != nil {
		return err
	}
	p, err := a.res.Query().Scans(r.Context(), statuses, q.strPtr("sort"), page, size)
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

// scanStatusFilter is a scans list's status filter (repeatable).
func scanStatusFilter(q query) ([]scan.Status, error) {
	sts, err := q.oneOf("status", scanStatuses...)
	if err != nil {
		return nil, err
	}
	statuses := make([]scan.Status, 0, len(sts))
	for _, s := range sts {
		statuses = append(statuses, scan.Status(s))
	}
	return statuses, nil
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
	vs, err := a.publishVersions(r, p.Items)
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
