package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

func (a *API) accessRequestRoutes(r chi.Router) {
	r.Get("/groups/{gid:[0-9]+}/request-access", a.handle(a.getMyAccessRequest))
	r.Post("/groups/{gid:[0-9]+}/request-access", a.handle(a.requestAccess))
	r.Delete("/groups/{gid:[0-9]+}/request-access", a.handle(a.revokeAccessRequest))
	r.Get("/groups/{gid:[0-9]+}/access-requests", a.handle(a.listAccessRequests))
	r.Get("/groups/{gid:[0-9]+}/access-requests/{rid:[0-9]+}", a.handle(a.getAccessRequest))
	r.Delete("/groups/{gid:[0-9]+}/access-requests/{rid:[0-9]+}", a.handle(a.declineAccessRequest))
	r.Post("/groups/{gid:[0-9]+}/access-requests/{rid:[0-9]+}/approve", a.handle(a.approveAccessRequest))
}

func (a *API) getMyAccessRequest(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	ar, err := a.res.Query().MyAccessRequest(r.Context(), gid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).accessRequest(ar))
	return nil
}

func (a *API) requestAccess(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	ar, err := a.res.Mutation().RequestGroupAccess(r.Context(), gid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, a.links(r).accessRequest(ar))
	return nil
}

func (a *API) revokeAccessRequest(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().RevokeGroupAccessRequest(r.Context(), gid); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (a *API) listAccessRequests(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	ars, err := a.res.Query().GroupAccessRequests(r.Context(), gid, queryOf(r).all("security"))
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]accessRequestJSON, 0, len(ars))
	for _, ar := range ars {
		out = append(out, l.accessRequest(ar))
	}
	return writeList(a, w, r, out)
}

func (a *API) requestIDs(r *http.Request) (gid, rid int, err error) {
	if gid, err = pathID(r, "gid"); err != nil {
		return 0, 0, err
	}
	rid, err = pathID(r, "rid")
	return gid, rid, err
}

func (a *API) getAccessRequest(w http.ResponseWriter, r *http.Request) error {
	gid, rid, err := a.requestIDs(r)
	if err != nil {
		return err
	}
	ar, err := a.res.Query().AccessRequest(r.Context(), gid, rid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).accessRequest(ar))
	return nil
}

func (a *API) declineAccessRequest(w http.ResponseWriter, r *http.Request) error {
	gid, rid, err := a.requestIDs(r)
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().DeclineAccessRequest(r.Context(), gid, rid); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (a *API) approveAccessRequest(w http.ResponseWriter, r *http.Request) error {
	gid, rid, err := a.requestIDs(r)
	if err != nil {
		return err
	}
	m, err := a.res.Mutation().ApproveAccessRequest(r.Context(), gid, rid)
	if err != nil {
		return err
	}
	l := a.links(r)
	w.Header().Set("Location", l.memberURL(gid, m.UserID))
	writeJSON(w, http.StatusCreated, l.member(m.Edges.Group, m))
	return nil
}
