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
	var hits []int
	ix.Search(env[0], env[1], env[2], env[3], func(i int) bool {
		hits = append(hits, i)
		return true
	})
	if len(hits) == 0 {
		return nil, nil
	}
	slices.SortFunc(hits, func(a, b int) int {
		if c := cmp.Compare(ix.FID(a), ix.FID(b)); c != 0 {
			return c
		}
		return a - b
	})
	cs := make([]candidate, len(hits))
	for j, i := range hits {
		c := candidate{fid: ix.FID(i), attrs: ix.Attrs(i)}
		if ix.IsPoint(i) {
			c.x, c.y, _, _ = ix.Box(i)
		} else {
			c.wkb = ix.WKB(i)
		}
		cs[j] = c
	}
	return encodeCandidates(cs, name, t)
}
