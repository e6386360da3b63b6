package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// itemFeedbackRoutes serves the feedback consumer action of an item:
// GET lists the comments and tickets about it that the caller may see
// (newest first, paged, type=comment|ticket), POST adds one about it
// (201, as POST /comments/ answers). Both need the catalog scope, as the
// other consumer actions do.
func (a *API) itemFeedbackRoutes(r chi.Router) {
	r.Get(itemPath+"/feedback", a.handle(a.listItemFeedback))
	r.Post(itemPath+"/feedback", a.handle(a.createItemFeedback))
}

func (a *API) listItemFeedback(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	page, size, err := q.paging()
	if err != nil {
		return err
	}
	typ, err := feedbackTypeOf(q)
	if err != nil {
		return err
	}
	p, err := a.res.Query().CatalogItemFeedback(r.Context(), chi.URLParam(r, "cid"), typ, page, size)
	if err != nil {
		return err
	}
	return a.writeFeedbackPage(w, r, p)
}

func (a *API) createItemFeedback(w http.ResponseWriter, r *http.Request) error {
	var body feedbackBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := body.createInput()
	if err != nil {
		return err
	}
	f, err := a.res.Mutation().CreateCatalogItemFeedback(r.Context(), chi.URLParam(r, "cid"), in)
	if err != nil {
		return err
	}
	return a.writeFeedback(w, r, f, http.StatusCreated)
}
