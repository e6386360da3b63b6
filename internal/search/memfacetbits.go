package search

import (
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// facetsByBitmap counts r by the cardinality of its intersection with
// each value's bitmap; the date ranges are the first and the last of r's
// slots in the oldest-first orders.
func (v *view) facetsByBitmap(r *roaring.Bitmap, limit int) *Facets {
	b := v.bits
	counts := func(bms []*roaring.Bitmap, size int) []int32 {
		out := make([]int32, size)
		for id, bm := range bms {
			if bm != nil && id < size {
				out[id] = int32(r.AndCardinality(bm))
			}
		}
		return out
	}
	f := &Facets{}
	f.Tag = fromDict(counts(b.tags, len(v.tags.vals)), v.tags, nil, true, limit)
	f.Category = fromDict(counts(b.cats, len(v.cats.vals)), v.cats, v.catNames, true, limit)
	f.Geotag = fromDict(counts(b.geos, len(v.geos.vals)), v.geos, v.geoNames, true, limit)
	f.RasterBand = fromDict(counts(b.bands, len(v.bands.vals)), v.bands, nil, true, limit)
	f.Kind = fromDict(counts(b.kinds, len(v.kinds.vals)), v.kinds, nil, false, limit)
	f.License = fromDict(counts(b.licenses, len(v.licenses.vals)), v.licenses, nil, true, limit)
	groups := map[int]int{}
	for g, bm := range b.groups {
		if g == 0 {
			continue
		}
		if n := r.AndCardinality(bm); n > 0 {
			groups[g] = int(n)
		}
	}
	res := map[float64]int{}
	var rMin, rMax float64
	for x, bm := range b.res {
		n := r.AndCardinality(bm)
		if n == 0 {
			continue
		}
		if len(res) == 0 || x < rMin {
			rMin = x
		}
		if len(res) == 0 || x > rMax {
			rMax = x
		}
		res[x] = int(n)
	}
	f.Group, f.RasterResolution = v.groupEntries(groups, limit), resEntries(res, limit)
	if !r.IsEmpty() {
		cMin, cMax := v.ends(SortCreatedOld, r)
		uMin, uMax := v.ends(SortUpdatedOld, r)
		f.CreatedAt = &TimeRange{Min: time.UnixMicro(v.docs[cMin].created).UTC(), Max: time.UnixMicro(v.docs[cMax].created).UTC()}
		f.UpdatedAt = &TimeRange{Min: time.UnixMicro(v.docs[uMin].updated).UTC(), Max: time.UnixMicro(v.docs[uMax].updated).UTC()}
	}
	if len(res) > 0 {
		f.RasterResolutionRange = &FloatRange{Min: rMin, Max: rMax}
	}
	return f
}

// ends returns the first and the last slot of r (not empty) in sort s's
// order.
func (v *view) ends(s Sort, r *roaring.Bitmap) (first, last int32) {
	perm := v.ord[s]
	for _, slot := range perm {
		if r.Contains(uint32(slot)) {
			first = slot
			break
		}
	}
	for i := len(perm) - 1; i >= 0; i-- {
		if r.Contains(uint32(perm[i])) {
			return first, perm[i]
		}
	}
	return first, first
}
