package vectortiles

import (
	"fmt"
	"slices"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/featureindex"
)

// encodeIndexed builds one layer's tile from a version's in-memory index:
// the same features, geometries and attributes as encodeInProcess reads
// from the store (fid order, the same thinning), without a query. nil
// when no feature reaches the tile.
func encodeIndexed(ix *featureindex.Index, name string, t Tile) ([]byte, error) {
	env := t.Envelope(Buffer)
	var hits []int
	ix.Search(env[0], env[1], env[2], env[3], func(i int) bool {
		hits = append(hits, i)
		return true
	})
	if len(hits) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(hits, func(a, b int) int {
		fa, fb := ix.FID(a), ix.FID(b)
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return a - b
	})
	proj := t.project()
	fs := make([]*geojson.Feature, 0, len(hits))
	for _, i := range hits {
		var tg orb.Geometry
		if ix.IsPoint(i) {
			x, y, _, _ := ix.Box(i)
			if !onMap([]float64{x, y}) {
				continue
			}
			px, py := proj(x, y)
			tg = fit(orb.Point{px, py})
		} else {
			decoded, err := wkb.Unmarshal(ix.WKB(i))
			if err != nil {
				continue // a geometry the import could not have written: left out
			}
			tg = toTile(decoded, proj)
		}
		if tg == nil {
			continue
		}
		props, err := properties(ix.Attrs(i))
		if err != nil {
			return nil, fmt.Errorf("feature %d: %w", ix.FID(i), err)
		}
		fs = append(fs, &geojson.Feature{ID: ix.FID(i), Geometry: tg, Properties: props})
	}
	fs = thin(fs)
	if len(fs) == 0 {
		return nil, nil
	}
	return mvt.Marshal(mvt.Layers{{Name: name, Version: 2, Extent: Extent, Features: fs}})
}
