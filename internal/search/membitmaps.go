package search

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/geopub/geopub/internal/access"
)

// The view's filter index: one compressed (roaring) bitmap of slots per
// filter value, so that a query's filters, its permission rule and its
// facet counts are unions, intersections and intersection cardinalities
// of bitmaps instead of a scan of the docs. The bitmaps are kept current
// by put and remove (a doc is filed under its values, and taken out
// again) and by setGrants (a dataset's docs are refiled under the levels
// its grants give).

// bitIndex holds the bitmaps. Slices are indexed by the view's dictionary
// ids; a nil entry is an empty bitmap.
type bitIndex struct {
	published, latest                                             *roaring.Bitmap
	types, kinds, statuses, licenses, licVers, geoms, sourceTypes []*roaring.Bitmap
	tags, cats, geos, bands                                       []*roaring.Bitmap
	groups, users                                                 map[int]*roaring.Bitmap
	res                                                           map[float64]*roaring.Bitmap
	hasZ, hasPK, imageryTrue, imageryFalse                        *roaring.Bitmap
	publicView, publicEdit                                        *roaring.Bitmap
	heldView, heldEdit                                            map[access.Subject]*roaring.Bitmap
}

func newBitIndex() *bitIndex {
	return &bitIndex{
		published: roaring.New(), latest: roaring.New(),
		groups: map[int]*roaring.Bitmap{}, users: map[int]*roaring.Bitmap{}, res: map[float64]*roaring.Bitmap{},
		hasZ: roaring.New(), hasPK: roaring.New(), imageryTrue: roaring.New(), imageryFalse: roaring.New(),
		publicView: roaring.New(), publicEdit: roaring.New(),
		heldView: map[access.Subject]*roaring.Bitmap{}, heldEdit: map[access.Subject]*roaring.Bitmap{},
	}
}

// bitAt returns the bitmap of dictionary id id, adding it when missing.
func bitAt(bs *[]*roaring.Bitmap, id uint32) *roaring.Bitmap {
	for int(id) >= len(*bs) {
		*bs = append(*bs, nil)
	}
	if (*bs)[id] == nil {
		(*bs)[id] = roaring.New()
	}
	return (*bs)[id]
}

// bitOf returns the bitmap of key k, adding it when missing.
func bitOf[K comparable](m map[K]*roaring.Bitmap, k K) *roaring.Bitmap {
	b, ok := m[k]
	if !ok {
		b = roaring.New()
		m[k] = b
	}
	return b
}

// file adds the doc at slot to the bitmaps of its values (on) or takes
// it out of them.
func (b *bitIndex) file(slot int32, d *mdoc, on bool) {
	x := uint32(slot)
	set := func(bm *roaring.Bitmap) {
		if on {
			bm.Add(x)
		} else {
			bm.Remove(x)
		}
	}
	if d.latest {
		set(b.latest)
	} else {
		set(b.published)
	}
	set(bitAt(&b.types, d.typ))
	set(bitAt(&b.kinds, d.kind))
	set(bitAt(&b.statuses, d.status))
	set(bitAt(&b.licenses, d.license))
	set(bitAt(&b.licVers, d.licVer))
	set(bitAt(&b.geoms, d.geom))
	set(bitAt(&b.sourceTypes, d.sourceType))
	for _, t := range d.tags() {
		set(bitAt(&b.tags, t))
	}
	for _, c := range d.cats() {
		set(bitAt(&b.cats, c))
	}
	for _, g := range d.geos() {
		set(bitAt(&b.geos, g))
	}
	for _, g := range d.bands() {
		set(bitAt(&b.bands, g))
	}
	set(bitOf(b.groups, d.group))
	set(bitOf(b.users, d.user))
	if d.hasRes && d.res == d.res { // NaN cannot key a map
		set(bitOf(b.res, d.res))
	}
	if d.hasZ {
		set(b.hasZ)
	}
	if d.hasPK {
		set(b.hasPK)
	}
	switch d.imagery {
	case 1:
		set(b.imageryTrue)
	case 0:
		set(b.imageryFalse)
	}
}

// fileLevels adds the doc at slot to the bitmaps of the levels its
// dataset's grants give (on), or takes it out of them.
func (v *view) fileLevels(slot int32, on bool) {
	b, x := v.bits, uint32(slot)
	p := &v.perms[v.docs[slot].perm]
	set := func(bm *roaring.Bitmap) {
		if on {
			bm.Add(x)
		} else {
			bm.Remove(x)
		}
	}
	if p.public >= access.View {
		set(b.publicView)
	}
	if p.public >= access.Edit {
		set(b.publicEdit)
	}
	for _, g := range p.grants {
		if g.level >= access.View {
			set(bitOf(b.heldView, g.subject))
		}
		if g.level >= access.Edit {
			set(bitOf(b.heldEdit, g.subject))
		}
	}
}

// Each dataset's docs (its published and latest versions) are chained
// from permFirst[perm] through nextInPerm[slot], as slot+1 (0 ends), so
// a grant change refiles them without a scan.

func (v *view) linkPerm(slot int32) {
	p := v.docs[slot].perm
	for int(slot) >= len(v.nextInPerm) {
		v.nextInPerm = append(v.nextInPerm, 0)
	}
	v.nextInPerm[slot] = v.permFirst[p]
	v.permFirst[p] = slot + 1
}

func (v *view) unlinkPerm(slot int32) {
	p := v.docs[slot].perm
	at := &v.permFirst[p]
	for *at != 0 {
		if *at == slot+1 {
			*at = v.nextInPerm[slot]
			v.nextInPerm[slot] = 0
			return
		}
		at = &v.nextInPerm[*at-1]
	}
}

// permDocs calls f with the slot of each doc of dataset perm.
func (v *view) permDocs(perm int32, f func(slot int32)) {
	for s := v.permFirst[perm]; s != 0; s = v.nextInPerm[s-1] {
		f(s - 1)
	}
}

// union is the union of bitmaps, skipping nil ones.
func union(bms ...*roaring.Bitmap) *roaring.Bitmap {
	var in []*roaring.Bitmap
	for _, b := range bms {
		if b != nil && !b.IsEmpty() {
			in = append(in, b)
		}
	}
	return roaring.FastOr(in...)
}

// byIDs returns the bitmaps of dictionary ids ids (nil when missing).
func byIDs(bs []*roaring.Bitmap, ids []uint32) []*roaring.Bitmap {
	var out []*roaring.Bitmap
	for _, id := range ids {
		if int(id) < len(bs) {
			out = append(out, bs[id])
		}
	}
	return out
}
