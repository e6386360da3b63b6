package rest

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/auth"
)

func (a *API) scanRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeSourcesRead, auth.ScopeSourcesWrite))
	r.Get("/sources/scans", a.handle(a.listAllScans))
	r.Get("/sources/{sid:[0-9]+}/scans", a.handle(a.listScans))
	r.Post("/sources/{sid:[0-9]+}/scans", a.handle(a.startScan))
	r.Get("/sources/{sid:[0-9]+}/scans/{scid:[0-9]+}", a.handle(a.getScan))
	r.Delete("/sources/{sid:[0-9]+}/scans/{scid:[0-9]+}", a.handle(a.cancelScan))
	r.Get("/sources/{sid:[0-9]+}/scans/{scid:[0-9]+}/log", a.handle(a.scanLog))
	r.Get("/sources/{sid:[0-9]+}/datasources", a.handle(a.listDatasources))
	r.Get("/sources/{sid:[0-9]+}/datasources/{did:[0-9]+}", a.handle(a.getDatasource))
	a.datasourceMetadataRoutes(r, "/sources/{sid:[0-9]+}/datasources/{did:[0-9]+}")
}

// scanJSON is the scan resource.
type scanJSON struct {
	ID           int            `json:"id"`
	URL          string         `json:"url"`
	Status       string         `json:"status"`
	Progress     float64        `json:"progress"`
	CreatedAt    time.Time      `json:"created_at"`
	StartedAt    *time.Time     `json:"started_at"`
	CompletedAt  *time.Time     `json:"completed_at"`
	ChangeCounts map[string]int `json:"change_counts"`
	Error        *string        `json:"error"`
	// Skipped are the files the scan found but did not describe, and why.
	Skipped []schematype.Skipped `json:"skipped"`
	Log     string               `json:"log"`
	Source  string               `json:"source"`
}

func (l links) scan(sc *ent.Scan) scanJSON {
	u := l.api("sources/%d/scans/%d/", sc.SourceID, sc.ID)
	out := scanJSON{
		ID: sc.ID, URL: u, Status: string(sc.Status), Progress: sc.Progress,
		CreatedAt: sc.CreatedAt, StartedAt: sc.StartedAt, CompletedAt: sc.CompletedAt,
		ChangeCounts: map[string]int{"added": sc.Added, "updated": sc.Updated, "deleted": sc.Deleted},
		Error:        nullable(sc.Error), Skipped: sc.Skipped, Log: u + "log/", Source: l.api("sources/%d/", sc.SourceID),
	}
	if out.Skipped == nil {
		out.Skipped = []schematype.Skipped{}
	}
	return out
}

func (a *API) listScans(w http.ResponseWriter, r *http.Request) error {
	sid, err := pathID(r, "sid")
	if err != nil {
		return err
	}
	q := queryOf(r)
	page, size, err := q.paging()
	if err != nil {
		return err
	}
	f, err := scanFilter(q)
	if err != nil {
		return err
	}
	p, err := a.res.SourceScansFiltered(r.Context(), sid, f, page, size)
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

func (a *API) startScan(w http.ResponseWriter, r *http.Request) error {
	sid, err := pathID(r, "sid")
	if err != nil {
		return err
	}
	sc, err := a.res.Mutation().StartScan(r.Context(), sid)
	if err != nil {
		return err
	}
	js := a.links(r).scan(sc)
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}

func (a *API) scanIDs(r *http.Request) (sid, scid int, err error) {
	if sid, err = pathID(r, "sid"); err != nil {
		return 0, 0, err
	}
	scid, err = pathID(r, "scid")
	return sid, scid, err
}

func (a *API) getScan(w http.ResponseWriter, r *http.Request) error {
	sid, scid, err := a.scanIDs(r)
	if err != nil {
		return err
	}
	sc, err := a.res.Query().Scan(r.Context(), sid, scid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).scan(sc))
	return nil
}

func (a *API) cancelScan(w http.ResponseWriter, r *http.Request) error {
	sid, scid, err := a.scanIDs(r)
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().CancelScan(r.Context(), sid, scid); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// scanLog serves the log as text/plain, one event per line.
func (a *API) scanLog(w http.ResponseWriter, r *http.Request) error {
	sid, scid, err := a.scanIDs(r)
	if err != nil {
		return err
	}
	sc, err := a.res.Query().Scan(r.Context(), sid, scid)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, err = w.Write([]byte(sc.Log))
	return err
}
