package rest

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
)

// itemConsumerRoutes serves the consumer actions on an item: star and pin
// (POST sets, DELETE clears, both idempotent, 204) and request-access.
func (a *API) itemConsumerRoutes(r chi.Router) {
	r.Post(itemPath+"/star", a.handle(a.markItem(true, true)))
	r.Delete(itemPath+"/star", a.handle(a.markItem(true, false)))
	r.Post(itemPath+"/pin", a.handle(a.markItem(false, true)))
	r.Delete(itemPath+"/pin", a.handle(a.markItem(false, false)))
	r.Get(itemPath+"/request-access", a.handle(a.getItemAccessRequest))
	r.Post(itemPath+"/request-access", a.handle(a.requestItemAccess))
	r.Delete(itemPath+"/request-access", a.handle(a.revokeItemAccessRequest))
}

func (a *API) markItem(star, on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		cid := chi.URLParam(r, "cid")
		var err error
		if star {
			_, err = a.res.Mutation().StarCatalogItem(r.Context(), cid, on)
		} else {
			_, err = a.res.Mutation().PinCatalogItem(r.Context(), cid, on)
		}
		if err != nil {
			return err
		}
		noContent(w)
		return nil
	}
}

// itemAccessRequestJSON is a request for access to a catalog item.
type itemAccessRequestJSON struct {
	ID        int        `json:"id"`
	URL       string     `json:"url"`
	Item      string     `json:"item"`
	Status    string     `json:"status"`
	CreatedAt time.Time  `json:"created_at"`
	ClosedAt  *time.Time `json:"closed_at"`
	User      userEmbed  `json:"user"`
}

func (a *API) renderItemAccessRequest(r *http.Request, cid string, ar *ent.DatasetAccessRequest) (itemAccessRequestJSON, error) {
	u, err := a.res.LookupUser(r.Context(), ar.UserID)
	if err != nil {
		return itemAccessRequestJSON{}, err
	}
	l := a.links(r)
	return itemAccessRequestJSON{ID: ar.ID, URL: l.api("items/%s/request-access/", cid), Item: l.api("items/%s/", cid),
		Status: string(ar.Status), CreatedAt: ar.CreatedAt, ClosedAt: ar.ClosedAt, User: l.userEmbed(u)}, nil
}

func (a *API) getItemAccessRequest(w http.ResponseWriter, r *http.Request) error {
	cid := chi.URLParam(r, "cid")
	ar, err := a.res.MyItemAccessRequest(r.Context(), cid)
	if err != nil {
		return err
	}
	js, err := a.renderItemAccessRequest(r, cid, ar)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, js)
	return nil
}

func (a *API) requestItemAccess(w http.ResponseWriter, r *http.Request) error {
	cid := chi.URLParam(r, "cid")
	ar, err := a.res.Mutation().RequestCatalogItemAccess(r.Context(), cid)
	if err != nil {
		return err
	}
	js, err := a.renderItemAccessRequest(r, cid, ar)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, js)
	return nil
}

func (a *API) revokeItemAccessRequest(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.res.Mutation().RevokeCatalogItemAccessRequest(r.Context(), chi.URLParam(r, "cid")); err != nil {
		return err
	}
	noContent(w)
	return nil
}
