package graph

import (
	"github.com/geopub/geopub/internal/croplayers"
)

// cropLayers is the crop-layer service over the resolver's store: the
// rules live there.
func (r *Resolver) cropLayers() *croplayers.Service { return croplayers.New(r.Store) }
