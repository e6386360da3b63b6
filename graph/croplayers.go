package graph

import (
	"github.com/geopub/geopub/internal/croplayers"
	"github.com/geopub/geopub/internal/paging"
)

// cropLayers is the crop-layer service over the resolver's store: the
// rules live there.
func (r *Resolver) cropLayers() *croplayers.Service { return croplayers.New(r.Store) }

// CropFeaturePageOf validates a crop-layer or crop-feature page request
// (REST and GraphQL share it).
func CropFeaturePageOf(page, size *int) (paging.Page, error) {
	return paging.New(page, size, paging.MaxSize)
}
