package search

import (
	"slices"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/access"
)

// Changes to the view: a dataset's grants replaced, a doc put or removed.
// Each files the doc (or the dataset's docs) into the text index, the
// bitmaps and the orders, and out of them again.

// setGrants replaces a dataset's grants.
func (v *view) setGrants(k permKey, gs []grant) {
	idx := v.permFor(k)
	v.permDocs(idx, func(s int32) { v.fileLevels(s, false) })
	defer v.permDocs(idx, func(s int32) { v.fileLevels(s, true) })
	p := &v.perms[idx]
	for _, g := range p.grants {
		l := v.bySubject[g.subject]
		if i := slices.Index(l, idx); i >= 0 {
			l = slices.Delete(l, i, i+1)
		}
		if len(l) == 0 {
			delete(v.bySubject, g.subject)
		} else {
			v.bySubject[g.subject] = l
		}
	}
	p.public, p.grants = access.None, nil
	for _, g := range gs {
		if g.subject.Kind == datasetpermission.SubjectEveryone {
			p.public = max(p.public, g.level)
			continue
		}
		p.grants = append(p.grants, g)
		if slices.Index(v.bySubject[g.subject], idx) < 0 {
			v.bySubject[g.subject] = append(v.bySubject[g.subject], idx)
		}
	}
}

// permFor returns the index of a dataset's grants, adding an empty entry.
func (v *view) permFor(k permKey) int32 {
	if i, ok := v.permIdx[k]; ok {
		return i
	}
	i := int32(len(v.perms))
	v.perms = append(v.perms, permState{key: k})
	v.permFirst = append(v.permFirst, 0)
	v.permIdx[k] = i
	return i
}

// put adds or replaces a doc.
func (v *view) put(d loadedDoc) {
	slot, ok := v.slots[d.id]
	var oldText *docText
	var prev *mdoc
	if ok {
		p := v.docs[slot]
		prev, oldText = &p, &p.text
		v.unfile(slot, false)
	} else {
		if n := len(v.free); n > 0 {
			slot, v.free = v.free[n-1], v.free[:n-1]
		} else {
			slot = int32(len(v.docs))
			v.docs = append(v.docs, mdoc{})
		}
		v.slots[d.id] = slot
		v.live++
	}
	doc := d.Doc
	m := mdoc{
		id: d.id, refID: doc.Ref.ID, kind: v.kinds.id(doc.Kind), status: v.statuses.id(doc.VersionStatus),
		license: v.licenses.id(doc.LicenseType), licVer: v.licVers.id(doc.LicenseVersion), geom: v.geoms.id(doc.GeometryType),
		title: doc.Title, group: doc.GroupID, user: doc.UserID,
		hasZ: doc.HasZ, hasPK: doc.HasPK, imagery: -1, created: micros(doc.CreatedAt), updated: micros(doc.UpdatedAt),
		popularity: doc.Popularity, perm: v.permFor(permKey{doc.PermKind, doc.PermID}),
	}
	m.latest, m.typ = doc.Ref.State == Latest, v.types.id(string(doc.Ref.Type))
	m.sourceType = v.sourceTypes.id(doc.SourceType)
	if doc.IsImagery != nil {
		m.imagery = 0
		if *doc.IsImagery {
			m.imagery = 1
		}
	}
	if doc.RasterResolution != nil {
		m.hasRes, m.res = true, *doc.RasterResolution
	}
	if doc.GroupID != 0 {
		v.groupNames[doc.GroupID] = doc.GroupName
	}
	m.vals = make([]uint32, 0, len(doc.Tags)+len(doc.Categories)+len(doc.Geotags)+len(doc.RasterBands))
	for _, t := range doc.Tags {
		m.vals = append(m.vals, v.tags.id(t))
	}
	m.ends[0] = uint16(len(m.vals))
	for _, c := range doc.Categories {
		id := v.cats.id(c.Key)
		v.catNames[id] = c.Name
		m.vals = append(m.vals, id)
	}
	m.ends[1] = uint16(len(m.vals))
	for _, g := range doc.Geotags {
		id := v.geos.id(g.Key)
		v.geoNames[id] = g.Name
		m.vals = append(m.vals, id)
	}
	m.ends[2] = uint16(len(m.vals))
	for _, b := range doc.RasterBands {
		m.vals = append(m.vals, v.bands.id(b))
	}
	var texts [8]string
	for i, t := range textColumns(doc) {
		texts[i] = t.(string)
	}
	m.text = v.text.add(slot, texts, oldText)
	v.docs[slot] = m
	v.linkPerm(slot)
	v.bits.file(slot, &v.docs[slot], true)
	v.fileLevels(slot, true)
	v.orderPut(slot, prev)
}

// unfile takes the doc at slot out of the bitmaps and (when it goes)
// the orders and the text index, before it is replaced or removed.
func (v *view) unfile(slot int32, gone bool) {
	if gone {
		v.orderRemove(slot)
	}
	v.fileLevels(slot, false)
	v.bits.file(slot, &v.docs[slot], false)
	v.unlinkPerm(slot)
	if gone {
		v.text.remove(slot, v.docs[slot].text)
	}
}

// remove drops a doc.
func (v *view) remove(id int64) {
	slot, ok := v.slots[id]
	if !ok {
		return
	}
	v.unfile(slot, true)
	v.docs[slot] = mdoc{}
	delete(v.slots, id)
	v.free = append(v.free, slot)
	v.live--
}
