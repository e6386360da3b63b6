package vectortiles

import (
	"cmp"
	"slices"

	"github.com/geopub/geopub/internal/featureindex"
)

// encodeIndexed builds one layer's tile from a version's in-memory index:
// the same features, geometries and attributes as encodeInProcess reads
// from the store (fid order, the same thinning), without a query. nil
// when no feature reaches the tile.
func encodeIndexed(ix *featureindex.Index, name string, t Tile) ([]byte, error) {
	env := t.Envelope(Buffer)
	type hit struct {
		fid  int64
		item int
	}
	var hits []hit
	ix.Search(env[0], env[1], env[2], env[3], func(i int) bool {
		hits = append(hits, hit{ix.FID(i), i})
		return true
	})
	if len(hits) == 0 {
		return nil, nil
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if c := cmp.Compare(a.fid, b.fid); c != 0 {
			return c
		}
		return a.item - b.item
	})
	hits = thin(hits, FeatureLimit(t.Z))
	cs := make([]candidate, len(hits))
	for j, h := range hits {
		c := candidate{fid: h.fid, attrs: ix.Attrs(h.item)}
		if ix.IsPoint(h.item) {
			c.x, c.y, _, _ = ix.Box(h.item)
		} else {
			c.wkb = ix.WKB(h.item)
		}
		cs[j] = c
	}
	return encodeCandidates(cs, name, t)
}
