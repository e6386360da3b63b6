package vectortiles

import (
	"cmp"
	"slices"
	"sync"

	"github.com/geopub/geopub/internal/featureindex"
)

// hit is an index item whose box meets a tile.
type hit struct {
	fid  int64
	item int
}

// indexScratch is the working space of one tile made from an index,
// reused from tile to tile (a zoom-8 tile meets thousands of items).
type indexScratch struct {
	hits []hit
	cs   []candidate
}

// maxScratch is the most entries a reused scratch keeps room for.
const maxScratch = 1 << 16

var scratches = sync.Pool{New: func() any { return new(indexScratch) }}

// encodeIndexed builds one layer's tile from a version's in-memory index:
// the same features, geometries and attributes as encodeInProcess reads
// from the store (fid order, the same thinning), without a query. nil
// when no feature reaches the tile.
func encodeIndexed(ix *featureindex.Index, name string, t Tile, dates map[string]bool) ([]byte, error) {
	sc := scratches.Get().(*indexScratch)
	defer func() {
		// Candidates point into the index: none stays behind.
		clear(sc.cs)
		if cap(sc.hits) > maxScratch {
			sc.hits = nil
		}
		if cap(sc.cs) > maxScratch {
			sc.cs = nil
		}
		scratches.Put(sc)
	}()
	env := t.Envelope(Buffer)
	hits := sc.hits[:0]
	ix.Search(env[0], env[1], env[2], env[3], func(i int) bool {
		hits = append(hits, hit{ix.FID(i), i})
		return true
	})
	sc.hits = hits
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
	cs := slices.Grow(sc.cs[:0], len(hits))[:len(hits)]
	sc.cs = cs
	for j, h := range hits {
		c := candidate{fid: h.fid, attrs: ix.Attrs(h.item)}
		if ix.IsPoint(h.item) {
			c.x, c.y, _, _ = ix.Box(h.item)
		} else {
			c.wkb = ix.WKB(h.item)
		}
		cs[j] = c
	}
	return encodeCandidates(cs, name, t, dates)
}
