package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/auth"
)

// starRoutes serves the consumer's star on layers, tables, sets and
// documents (api-shapes §10.1): POST stars, DELETE unstars, both with an
// empty body, idempotent, 204; the catalog scope and a dataset the caller
// may see (others are 404), as for catalog items (itemconsumer.go).
func (a *API) starRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeCatalog, auth.ScopeCatalog))
	for _, c := range []struct {
		path  string
		param string
		star  func(r *http.Request, id int, on bool) error
	}{
		{"/layers/{lid:[0-9]+}/star", "lid", func(r *http.Request, id int, on bool) error {
			return a.res.StarLayerOfType(r.Context(), layer.TypeLayer, id, on)
		}},
		{"/tables/{lid:[0-9]+}/star", "lid", func(r *http.Request, id int, on bool) error {
			return a.res.StarLayerOfType(r.Context(), layer.TypeTable, id, on)
		}},
		{"/sets/{sid:[0-9]+}/star", "sid", func(r *http.Request, id int, on bool) error { return a.res.StarSet(r.Context(), id, on) }},
		{"/documents/{did:[0-9]+}/star", "did", func(r *http.Request, id int, on bool) error { return a.res.StarDocument(r.Context(), id, on) }},
	} {
		for _, on := range []bool{true, false} {
			handler := func(w http.ResponseWriter, r *http.Request) error {
				id, err := pathID(r, c.param)
				if err != nil {
					return err
				}
				if err := c.star(r, id, on); err != nil {
					return err
				}
				noContent(w)
				return nil
			}
			if on {
				r.Post(c.path, a.handle(handler))
			} else {
				r.Delete(c.path, a.handle(handler))
			}
		}
	}
}
