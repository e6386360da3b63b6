package search

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// facets counts the whole filtered result r: every list facet, most
// frequent first (ties by key), at most limit entries each, and the date
// and resolution ranges. A large result is counted by intersecting it
// with each value's bitmap (a cost set by the number of values, not of
// docs); a small one by reading its docs, which is then cheaper.
func (v *view) facets(r *roaring.Bitmap, limit int) *Facets {
	n := r.GetCardinality()
	values := len(v.tags.vals) + len(v.cats.vals) + len(v.geos.vals) + len(v.bands.vals) + len(v.kinds.vals) +
		len(v.licenses.vals) + len(v.bits.groups) + len(v.bits.res)
	if n < uint64(facetScanPerValue*values*(len(v.docs)>>16+1)) || v.ord == nil {
		matched := make([]int32, 0, n)
		r.Iterate(func(x uint32) bool { matched = append(matched, int32(x)); return true })
		return v.facetsByScan(matched, limit)
	}
	return v.facetsByBitmap(r, limit)
}

// facetScanPerValue: a result smaller than this many docs per value
// bitmap container is counted doc by doc.
const facetScanPerValue = 8

// facetsByScan counts the docs of matched one by one.
func (v *view) facetsByScan(matched []int32, limit int) *Facets {
	f := &Facets{}
	tags := make([]int32, len(v.tags.vals))
	cats := make([]int32, len(v.cats.vals))
	geos := make([]int32, len(v.geos.vals))
	bands := make([]int32, len(v.bands.vals))
	kinds := make([]int32, len(v.kinds.vals))
	licenses := make([]int32, len(v.licenses.vals))
	groups := map[int]int{}
	res := map[float64]int{}
	var cMin, cMax, uMin, uMax int64
	var rMin, rMax float64
	hasRes := false
	for i, s := range matched {
		d := &v.docs[s]
		for _, t := range d.tags() {
			tags[t]++
		}
		for _, c := range d.cats() {
			cats[c]++
		}
		for _, g := range d.geos() {
			geos[g]++
		}
		for _, b := range d.bands() {
			bands[b]++
		}
		kinds[d.kind]++
		licenses[d.license]++
		if d.group != 0 {
			groups[d.group]++
		}
		if d.hasRes {
			res[d.res]++
			if !hasRes || d.res < rMin {
				rMin = d.res
			}
			if !hasRes || d.res > rMax {
				rMax = d.res
			}
			hasRes = true
		}
		if i == 0 {
			cMin, cMax, uMin, uMax = d.created, d.created, d.updated, d.updated
		}
		cMin, cMax = min(cMin, d.created), max(cMax, d.created)
		uMin, uMax = min(uMin, d.updated), max(uMax, d.updated)
	}
	f.Tag = fromDict(tags, v.tags, nil, true, limit)
	f.Category = fromDict(cats, v.cats, v.catNames, true, limit)
	f.Geotag = fromDict(geos, v.geos, v.geoNames, true, limit)
	f.RasterBand = fromDict(bands, v.bands, nil, true, limit)
	f.Kind = fromDict(kinds, v.kinds, nil, false, limit)
	f.License = fromDict(licenses, v.licenses, nil, true, limit)
	f.Group, f.RasterResolution = v.groupEntries(groups, limit), resEntries(res, limit)
	if len(matched) > 0 {
		f.CreatedAt = &TimeRange{Min: time.UnixMicro(cMin).UTC(), Max: time.UnixMicro(cMax).UTC()}
		f.UpdatedAt = &TimeRange{Min: time.UnixMicro(uMin).UTC(), Max: time.UnixMicro(uMax).UTC()}
	}
	if hasRes {
		f.RasterResolutionRange = &FloatRange{Min: rMin, Max: rMax}
	}
	return f
}

// fromDict lists the values of d with a count.
func fromDict(counts []int32, d *dict, names map[uint32]string, skipEmpty bool, limit int) []FacetEntry {
	out := []FacetEntry{}
	for id, n := range counts {
		if n == 0 || (skipEmpty && id == 0) {
			continue
		}
		out = append(out, FacetEntry{Key: d.vals[id], Name: names[uint32(id)], Total: int(n)})
	}
	return top(out, limit, func(a, b FacetEntry) int { return cmp.Compare(a.Key, b.Key) })
}

func (v *view) groupEntries(groups map[int]int, limit int) []FacetEntry {
	out := []FacetEntry{}
	for g, n := range groups {
		out = append(out, FacetEntry{Key: strconv.Itoa(g), Name: v.groupNames[g], Total: n})
	}
	return top(out, limit, func(a, b FacetEntry) int { return cmp.Compare(atoi(a.Key), atoi(b.Key)) })
}

func resEntries(res map[float64]int, limit int) []FacetEntry {
	out := []FacetEntry{}
	for r, n := range res {
		out = append(out, FacetEntry{Key: strconv.FormatFloat(r, 'g', -1, 64), Total: n})
	}
	return top(out, limit, func(a, b FacetEntry) int { return cmp.Compare(atof(a.Key), atof(b.Key)) })
}

// top orders entries by total (descending), then by key, and keeps limit.
func top(es []FacetEntry, limit int, byKey func(a, b FacetEntry) int) []FacetEntry {
	slices.SortFunc(es, func(a, b FacetEntry) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return byKey(a, b)
	})
	if len(es) > limit {
		es = es[:limit]
	}
	return es
}

func atoi(s string) int     { n, _ := strconv.Atoi(s); return n }
func atof(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
