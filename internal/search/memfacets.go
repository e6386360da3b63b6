package search

import (
	"cmp"
	"slices"
	"strconv"
	"time"
)

// facets counts the whole filtered result: every list facet, most
// frequent first (ties by key), at most limit entries each, and the date
// and resolution ranges.
func (v *view) facets(matched []int32, limit int) *Facets {
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
		for _, t := range d.tags {
			tags[t]++
		}
		for _, c := range d.cats {
			cats[c]++
		}
		for _, g := range d.geos {
			geos[g]++
		}
		for _, b := range d.bands {
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
	fromDict := func(counts []int32, d *dict, names map[uint32]string, skipEmpty bool) []FacetEntry {
		out := []FacetEntry{}
		for id, n := range counts {
			if n == 0 || (skipEmpty && id == 0) {
				continue
			}
			out = append(out, FacetEntry{Key: d.vals[id], Name: names[uint32(id)], Total: int(n)})
		}
		return top(out, limit, func(a, b FacetEntry) int { return cmp.Compare(a.Key, b.Key) })
	}
	f.Tag = fromDict(tags, v.tags, nil, true)
	f.Category = fromDict(cats, v.cats, v.catNames, true)
	f.Geotag = fromDict(geos, v.geos, v.geoNames, true)
	f.RasterBand = fromDict(bands, v.bands, nil, true)
	f.Kind = fromDict(kinds, v.kinds, nil, false)
	f.License = fromDict(licenses, v.licenses, nil, true)
	f.Group = []FacetEntry{}
	for g, n := range groups {
		f.Group = append(f.Group, FacetEntry{Key: strconv.Itoa(g), Name: v.groupNames[g], Total: n})
	}
	f.Group = top(f.Group, limit, func(a, b FacetEntry) int { return cmp.Compare(atoi(a.Key), atoi(b.Key)) })
	f.RasterResolution = []FacetEntry{}
	for r, n := range res {
		f.RasterResolution = append(f.RasterResolution, FacetEntry{Key: strconv.FormatFloat(r, 'g', -1, 64), Total: n})
	}
	f.RasterResolution = top(f.RasterResolution, limit, func(a, b FacetEntry) int { return cmp.Compare(atof(a.Key), atof(b.Key)) })
	if len(matched) > 0 {
		f.CreatedAt = &TimeRange{Min: time.UnixMicro(cMin).UTC(), Max: time.UnixMicro(cMax).UTC()}
		f.UpdatedAt = &TimeRange{Min: time.UnixMicro(uMin).UTC(), Max: time.UnixMicro(uMax).UTC()}
	}
	if hasRes {
		f.RasterResolutionRange = &FloatRange{Min: rMin, Max: rMax}
	}
	return f
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
