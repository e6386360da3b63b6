package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/graph"
)

// itemAccessRequestRoutes serves the administrators' side of requests for
// access to an item, after the group access requests: GET lists the
// outstanding requests (catalog scope), GET one, DELETE declines it (204),
// POST .../approve/ approves it (201 with the requester's permission on
// the item, Location its URL). The body of approve may name the
// permission to grant ({"permission": "view"|"download"|"edit"|"admin"});
// without one the requester gets download. All need admin on the item.
func (a *API) itemAccessRequestRoutes(r chi.Router) {
	one := itemPath + "/access-requests/{rid:[0-9]+}"
	r.Get(itemPath+"/access-requests", a.handle(a.listItemAccessRequests))
	r.Get(one, a.handle(a.getItemAccessRequestByID))
	r.Delete(one, a.handle(a.declineItemAccessRequest))
	r.Post(one+"/approve", a.handle(a.approveItemAccessRequest))
}

// renderAdminItemRequest is an access request as the item's admins see
// it: at its place in the item's list.
func (a *API) renderAdminItemRequest(r *http.Request, cid string, ar *ent.DatasetAccessRequest) (itemAccessRequestJSON, error) {
	js, err := a.renderItemAccessRequest(r, cid, ar)
	js.URL = a.links(r).api("items/%s/access-requests/%d/", cid, ar.ID)
	return js, err
}

func (a *API) listItemAccessRequests(w http.ResponseWriter, r *http.Request) error {
	cid := chi.URLParam(r, "cid")
	ars, err := a.res.Query().CatalogItemAccessRequests(r.Context(), cid)
	if err != nil {
		return err
	}
	out := make([]itemAccessRequestJSON, 0, len(ars))
	for _, ar := range ars {
		js, err := a.renderAdminItemRequest(r, cid, ar)
		if err != nil {
			return err
		}
		out = append(out, js)
	}
	return writeList(a, w, r, out)
}

func (a *API) getItemAccessRequestByID(w http.ResponseWriter, r *http.Request) error {
	cid := chi.URLParam(r, "cid")
	rid, err := pathID(r, "rid")
	if err != nil {
		return err
	}
	ar, err := a.res.Query().CatalogItemAccessRequest(r.Context(), cid, rid)
	if err != nil {
		return err
	}
	js, err := a.renderAdminItemRequest(r, cid, ar)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, js)
	return nil
}

func (a *API) declineItemAccessRequest(w http.ResponseWriter, r *http.Request) error {
	rid, err := pathID(r, "rid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().DeclineCatalogItemAccessRequest(r.Context(), chi.URLParam(r, "cid"), rid); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (a *API) approveItemAccessRequest(w http.ResponseWriter, r *http.Request) error {
	cid := chi.URLParam(r, "cid")
	rid, err := pathID(r, "rid")
	if err != nil {
		return err
	}
	var body struct {
		Permission *string `json:"permission"`
	}
	if err := decodeOptionalJSON(r, &body); err != nil {
		return err
	}
	var lv *datasetpermission.Permission
	if body.Permission != nil {
		p, err := permissionOf(*body.Permission)
		if err != nil {
			return err
		}
		lv = &p
	}
	p, err := a.res.Mutation().ApproveCatalogItemAccessRequest(r.Context(), cid, rid, lv)
	if err != nil {
		return err
	}
	h := datasetPermissions{api: a, b: baseOf(graph.DatasetTypeCatalogItem)}
	out, err := h.render(r, p.DatasetID, p)
	if err != nil {
		return err
	}
	w.Header().Set("Location", out[0].URL)
	writeJSON(w, http.StatusCreated, out[0])
	return nil
}
