package search

import (
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/geopub/geopub/internal/access"
)

// match evaluates q's state, filters and the caller's permissions into
// the bitmap of the slots they keep: repeated values of one filter are a
// union of their bitmaps, different filters an intersection. Range
// filters (dates, resolution) and stars, rare and not keyed by value,
// are tested doc by doc on what the bitmaps kept.
func (v *view) match(q Query, stars map[Ref]bool) *roaring.Bitmap {
	b := v.bits
	var r *roaring.Bitmap
	if q.State == Latest {
		r = b.latest.Clone()
	} else {
		r = b.published.Clone()
	}
	// anyOf keeps the slots in at least one of bms.
	anyOf := func(bms []*roaring.Bitmap) {
		switch len(bms) {
		case 0:
			r.Clear()
		case 1:
			if bms[0] == nil {
				r.Clear()
			} else {
				r.And(bms[0])
			}
		default:
			r.And(union(bms...))
		}
	}
	if len(q.Types) > 0 {
		var names []string
		for _, t := range q.Types {
			names = append(names, string(t))
		}
		anyOf(byIDs(b.types, ids(v.types, names)))
	}
	if len(q.Kinds) > 0 || len(q.GeometryTypes) > 0 {
		bms := byIDs(b.kinds, ids(v.kinds, q.Kinds))
		bms = append(bms, byIDs(b.types, ids(v.types, q.Kinds))...)
		anyOf(append(bms, byIDs(b.geoms, ids(v.geoms, q.GeometryTypes))...))
	}
	for _, f := range []struct {
		values []string
		d      *dict
		bms    []*roaring.Bitmap
	}{
		{q.Tags, v.tags, b.tags}, {q.Categories, v.cats, b.cats}, {q.Geotags, v.geos, b.geos}, {q.RasterBands, v.bands, b.bands},
		{q.LicenseVersions, v.licVers, b.licVers}, {q.VersionStatuses, v.statuses, b.statuses}, {q.SourceTypes, v.sourceTypes, b.sourceTypes},
	} {
		if len(f.values) > 0 {
			anyOf(byIDs(f.bms, ids(f.d, f.values)))
		}
	}
	keyed := func(m map[int]*roaring.Bitmap, keys []int) []*roaring.Bitmap {
		var out []*roaring.Bitmap
		for _, k := range keys {
			out = append(out, m[k])
		}
		return out
	}
	if len(q.GroupIDs) > 0 {
		anyOf(keyed(b.groups, q.GroupIDs))
	}
	if len(q.ExcludeGroupIDs) > 0 {
		var out []*roaring.Bitmap
		for _, bm := range keyed(b.groups, q.ExcludeGroupIDs) {
			if bm != nil {
				out = append(out, bm)
			}
		}
		if len(out) > 0 {
			r.AndNot(union(out...))
		}
	}
	if len(q.UserIDs) > 0 {
		anyOf(keyed(b.users, q.UserIDs))
	}
	if o := q.Owner; o != nil {
		bms := []*roaring.Bitmap{b.users[o.UserID]}
		for _, g := range o.GroupIDs {
			if g != 0 {
				bms = append(bms, b.groups[g])
			}
		}
		anyOf(bms)
	}
	var inc, exc []string
	for _, t := range q.LicenseTypes {
		if x, ok := strings.CutPrefix(t, "-"); ok {
			exc = append(exc, x)
		} else {
			inc = append(inc, t)
		}
	}
	if len(inc) > 0 {
		anyOf(byIDs(b.licenses, ids(v.licenses, inc)))
	}
	if len(exc) > 0 {
		r.AndNot(union(byIDs(b.licenses, ids(v.licenses, exc))...))
	}
	flag := func(want *bool, bm *roaring.Bitmap) {
		switch {
		case want == nil:
		case *want:
			r.And(bm)
		default:
			r.AndNot(bm)
		}
	}
	flag(q.HasZ, b.hasZ)
	flag(q.HasPK, b.hasPK)
	flag(q.Public, b.publicView)
	if q.IsImagery != nil {
		if *q.IsImagery {
			r.And(b.imageryTrue)
		} else {
			r.And(b.imageryFalse)
		}
	}
	if see := v.visible(q); see != nil {
		r.And(see)
	}
	if test := v.residual(q, stars); test != nil {
		kept := roaring.New()
		it := r.Iterator()
		for it.HasNext() {
			s := it.Next()
			if test(&v.docs[s]) {
				kept.Add(s)
			}
		}
		r = kept
	}
	return r
}

// residual compiles the filters without bitmaps into one predicate; nil
// when q has none.
func (v *view) residual(q Query, stars map[Ref]bool) func(*mdoc) bool {
	var preds []func(*mdoc) bool
	add := func(p func(*mdoc) bool) { preds = append(preds, p) }
	if gt := q.RasterResolutionGT; gt != nil {
		x := *gt
		add(func(d *mdoc) bool { return d.hasRes && d.res > x })
	}
	if lt := q.RasterResolutionLT; lt != nil {
		x := *lt
		add(func(d *mdoc) bool { return d.hasRes && d.res < x })
	}
	between := func(after, before *time.Time, field func(*mdoc) int64) {
		if after != nil {
			a := micros(*after)
			add(func(d *mdoc) bool { return field(d) > a })
		}
		if before != nil {
			b := micros(*before)
			add(func(d *mdoc) bool { return field(d) < b })
		}
	}
	between(q.CreatedAfter, q.CreatedBefore, func(d *mdoc) int64 { return d.created })
	between(q.UpdatedAfter, q.UpdatedBefore, func(d *mdoc) int64 { return d.updated })
	if q.IsStarred != nil {
		w := *q.IsStarred
		add(func(d *mdoc) bool { return stars[Ref{Type: v.refOf(d).Type, ID: d.refID}] == w })
	}
	if len(preds) == 0 {
		return nil
	}
	return func(d *mdoc) bool {
		for _, p := range preds {
			if !p(d) {
				return false
			}
		}
		return true
	}
}

// visible is the bitmap of the docs the caller may read, by
// internal/access's rule evaluated on the view's grants: view on
// published docs; on latest docs, view when the version is published,
// edit otherwise. A doc's level is the highest of what everyone, the
// caller's grant holders and the caller's group memberships (as owner)
// get, so "level ≥ x" is the union of each source's "≥ x" bitmap. Nil
// when everything is visible (site administrators).
func (v *view) visible(q Query) *roaring.Bitmap {
	viewer := q.Viewer
	if viewer.SiteAdmin {
		return nil
	}
	b := v.bits
	latest := q.State == Latest
	views, edits := []*roaring.Bitmap{b.publicView}, []*roaring.Bitmap{b.publicEdit}
	for _, s := range viewer.GrantHolders() {
		views = append(views, b.heldView[s])
		if latest {
			edits = append(edits, b.heldEdit[s])
		}
	}
	for g, l := range viewer.OwnerLevels() {
		if g == 0 {
			continue
		}
		if l >= access.View {
			views = append(views, b.groups[g])
		}
		if l >= access.Edit && latest {
			edits = append(edits, b.groups[g])
		}
	}
	see := union(views...)
	if !latest {
		return see
	}
	published, _ := v.statuses.lookup(string(Published))
	if pub := byIDs(b.statuses, []uint32{published}); len(pub) == 1 && pub[0] != nil {
		see.And(pub[0])
	} else {
		see.Clear()
	}
	see.Or(union(edits...))
	return see
}
