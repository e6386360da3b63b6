package rest

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/follows"
)

// Follows (internal/follows): the datasets whose change events come to
// the caller's notification stream.
//
//	POST, DELETE /layers/{id}/follow/ (and tables, sets, documents, items)
//	GET          /follows/
//
// POST follows and DELETE unfollows, both with an empty body,
// idempotent, 204, as stars are; the catalog scope and a dataset the
// caller may see (others are 404). A star follows until unfollowed.
func (a *API) followRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeCatalog, auth.ScopeCatalog))
	r.Get("/follows", a.handle(a.listFollows))
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeSource {
			continue
		}
		for _, on := range []bool{true, false} {
			h := a.handle(func(w http.ResponseWriter, r *http.Request) error {
				id, err := b.id(r)
				if err != nil {
					return err
				}
				if err := a.res.SetFollow(r.Context(), b.typ, id, on); err != nil {
					return err
				}
				noContent(w)
				return nil
			})
			if on {
				r.Post(b.member()+"/follow", h)
			} else {
				r.Delete(b.member()+"/follow", h)
			}
		}
	}
}

// followJSON is one dataset the caller follows.
type followJSON struct {
	Dataset changefeed.WireDataset `json:"dataset"`
	Via     string                 `json:"via"`
	Since   time.Time              `json:"since"`
}

func (l links) follow(f follows.Followed) followJSON {
	return followJSON{Via: f.Via, Since: f.Since, Dataset: changefeed.DatasetWire(f.Type, f.ID, f.Title, l.api(""), l.html(""))}
}

func (a *API) listFollows(w http.ResponseWriter, r *http.Request) error {
	fs, err := a.res.FollowedDatasets(r.Context())
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]followJSON, len(fs))
	for i, f := range fs {
		out[i] = l.follow(f)
	}
	return writeList(a, w, r, out)
}
