package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/paging"
)

// LayerList is what a store-backed layer list asks: the layer types it
// holds (none: layers and tables, as /layers/ holds both), the catalogue
// kinds it keeps (none: every kind), the store's substring match q, and
// whether it lists the caller's drafts.
type LayerList struct {
	Types          []layer.Type
	Kinds          []string
	Q              *string
	Drafts         bool
	Page, PageSize *int
}

// layerKinds maps the catalogue's kind values (api-shapes §4.2) onto
// layers of the store: vector, raster and grid are kinds of layers,
// table the tables, layer every layer. The others (set, document, ...)
// name no layer.
func layerKinds(kinds []string) predicate.Layer {
	var or []predicate.Layer
	for _, k := range kinds {
		switch k {
		case "vector", "raster", "grid":
			or = append(or, layer.And(layer.TypeEQ(layer.TypeLayer), layer.KindEQ(layer.Kind(k))))
		case "table":
			or = append(or, layer.TypeEQ(layer.TypeTable))
		case "layer":
			or = append(or, layer.TypeEQ(layer.TypeLayer))
		}
	}
	if len(or) == 0 {
		return layer.IDLT(0) // none
	}
	return layer.Or(or...)
}

// ListLayers answers a store-backed layer list (/layers/, /tables/ and
// their drafts/ lists, GraphQL layerSearch) with the layers the caller
// may see, or with drafts those they may edit.
func (r *Resolver) ListLayers(ctx context.Context, in LayerList) (*LayerPage, error) {
	if err := access.RequireScope(ctx, auth.ScopeLayersRead); err != nil {
		return nil, err
	}
	pg, err := paging.New(in.Page, in.PageSize, paging.MaxSize)
	if err != nil {
		return nil, err
	}
	preds, err := listed(ctx, r.Client, access.KindLayer, in.Drafts,
		predicate.Layer(layer.HasVersionsWith(layerversion.StateEQ(layerversion.StateDraft))), in.Q, layer.NameContainsFold)
	if err != nil {
		return nil, err
	}
	if len(in.Types) > 0 {
		preds = append(preds, layer.TypeIn(in.Types...))
	}
	if len(in.Kinds) > 0 {
		preds = append(preds, layerKinds(in.Kinds))
	}
	items, info, err := listPage[*ent.LayerQuery](ctx, r.Client.Layer.Query().Where(preds...).Order(layer.ByID()), pg)
	if err != nil {
		return nil, err
	}
	loadersFrom(ctx).layers.registerLayers(items)
	return &LayerPage{Items: items, PageInfo: info}, nil
}
