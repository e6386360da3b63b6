package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/deprecation"
)

// Deprecation (internal/deprecation): a publisher's notice that a dataset
// should no longer be used.
//
//	POST   /layers/{id}/deprecate/ (and tables, sets, documents, items)
//	DELETE the same
//
// POST marks the dataset deprecated with a body {"reason": "...",
// "replacement": {"type": "layer", "id": 12}} (replacement optional) and
// answers 200 with the dataset; DELETE clears the mark, idempotent, 204 as
// the other toggles (stars, follows) answer. Both take the dataset type's
// write scope and edit permission on the dataset.
func (a *API) deprecationRoutes(r chi.Router) {
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeSource {
			continue
		}
		r := r.With(scoped(b.read, b.write))
		r.Post(b.member()+"/deprecate", a.handle(a.deprecate(b)))
		r.Delete(b.member()+"/deprecate", a.handle(a.undeprecate(b)))
	}
}

// deprecateBody is the body of POST …/deprecate/.
type deprecateBody struct {
	Reason      string           `json:"reason"`
	Replacement *replacementBody `json:"replacement"`
}

// replacementBody names the replacing dataset: its type (layer, table,
// set, document, item) and id, a number or, for a catalog item, its
// public id (c12) as well.
type replacementBody struct {
	Type string          `json:"type"`
	ID   json.RawMessage `json:"id"`
}

// datasetTypes maps the API's dataset type names onto GraphQL's.
var datasetTypes = map[string]graph.DatasetType{
	"layer": graph.DatasetTypeLayer, "table": graph.DatasetTypeTable, "set": graph.DatasetTypeSet,
	"document": graph.DatasetTypeDocument, "item": graph.DatasetTypeCatalogItem,
}

// input reads the replacement as the resolver takes it.
func (b *replacementBody) input() (*graph.ChangeDatasetInput, error) {
	if b == nil {
		return nil, nil
	}
	t, ok := datasetTypes[b.Type]
	if !ok {
		return nil, apperr.Field("replacement", "Give the replacement's type: layer, table, set, document or item.")
	}
	var id int
	if err := json.Unmarshal(b.ID, &id); err != nil {
		var s string
		if json.Unmarshal(b.ID, &s) != nil {
			return nil, apperr.Field("replacement", "Give the replacement's id: a number, or a catalog item's public id (c12).")
		}
		if t == graph.DatasetTypeCatalogItem {
			id, err = graph.ParseItemID(s)
		} else {
			id, err = strconv.Atoi(s)
		}
		if err != nil {
			return nil, apperr.Field("replacement", "Give the replacement's id: a number, or a catalog item's public id (c12).")
		}
	}
	return &graph.ChangeDatasetInput{Type: t, ID: id}, nil
}

func (a *API) deprecate(b datasetBase) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := b.id(r)
		if err != nil {
			return err
		}
		var body deprecateBody
		if err := decodeJSON(r, &body); err != nil {
			return err
		}
		repl, err := body.Replacement.input()
		if err != nil {
			return err
		}
		if _, err := a.res.DeprecateDataset(r.Context(), b.typ, id, body.Reason, repl); err != nil {
			return err
		}
		js, err := a.datasetJSON(r, b.typ, id)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, js)
		return nil
	}
}

func (a *API) undeprecate(b datasetBase) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := b.id(r)
		if err != nil {
			return err
		}
		if err := a.res.UndeprecateDataset(r.Context(), b.typ, id); err != nil {
			return err
		}
		noContent(w)
		return nil
	}
}

// datasetJSON renders dataset (t, id) as GET on it does, to a caller who
// has just written it.
func (a *API) datasetJSON(r *http.Request, t graph.DatasetType, id int) (any, error) {
	switch t {
	case graph.DatasetTypeSet:
		return a.setAsOf(r, id, nil)
	case graph.DatasetTypeDocument:
		d, err := a.res.DocumentOf(r.Context(), id)
		if err != nil {
			return nil, err
		}
		return a.renderDocument(r, d, nil, true)
	case graph.DatasetTypeCatalogItem:
		it, err := a.res.CatalogItemOf(r.Context(), id)
		if err != nil {
			return nil, err
		}
		return a.renderItem(r, it, nil)
	}
	ly, err := a.res.LayerOf(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return a.renderLayer(r, ly, nil)
}

// deprecatedJSON is a dataset's deprecation notice; datasets that are not
// deprecated show null.
type deprecatedJSON struct {
	At          time.Time        `json:"at"`
	Reason      string           `json:"reason"`
	Replacement *replacementJSON `json:"replacement"`
}

// replacementJSON names the dataset replacing a deprecated one.
type replacementJSON struct {
	Type string `json:"type"`
	ID   any    `json:"id"`
	URL  string `json:"url"`
}

// deprecated renders a dataset's deprecation fields (nil when it is not
// deprecated).
func (l links) deprecated(at *time.Time, reason, replacementType string, replacementID *int) *deprecatedJSON {
	n := deprecation.Of(at, reason, replacementType, replacementID)
	if n == nil {
		return nil
	}
	out := &deprecatedJSON{At: n.At, Reason: n.Reason}
	if rp := n.Replacement; rp != nil {
		out.Replacement = &replacementJSON{Type: rp.Type, ID: changefeed.PublicID(rp.Type, rp.ID),
			URL: l.api("%s/", changefeed.DatasetPath(rp.Type, rp.ID))}
	}
	return out
}
