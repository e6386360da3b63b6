package search

import (
	"slices"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/access"
)

// The scan evaluation the bitmaps replaced, kept as the oracle of
// TestBitmapsMatchScan: a predicate over each doc.

func scanAnyIn(have, want []uint32) bool {
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}

// filter compiles q's filters, state and the caller's permissions into
// one predicate over docs.
func (v *view) scanFilter(q Query, stars map[Ref]bool) func(*mdoc) bool {
	var preds []func(*mdoc) bool
	add := func(p func(*mdoc) bool) { preds = append(preds, p) }
	latest := q.State == Latest
	add(func(d *mdoc) bool { return d.latest == latest })
	if len(q.Types) > 0 {
		var names []string
		for _, t := range q.Types {
			names = append(names, string(t))
		}
		types := ids(v.types, names)
		add(func(d *mdoc) bool { return slices.Contains(types, d.typ) })
	}
	if len(q.Kinds) > 0 || len(q.GeometryTypes) > 0 {
		kinds, geoms, types := ids(v.kinds, q.Kinds), ids(v.geoms, q.GeometryTypes), ids(v.types, q.Kinds)
		add(func(d *mdoc) bool {
			return slices.Contains(kinds, d.kind) || slices.Contains(types, d.typ) || slices.Contains(geoms, d.geom)
		})
	}
	multi := func(values []string, dc *dict, field func(*mdoc) []uint32) {
		if len(values) > 0 {
			want := ids(dc, values)
			add(func(d *mdoc) bool { return scanAnyIn(field(d), want) })
		}
	}
	multi(q.Tags, v.tags, func(d *mdoc) []uint32 { return d.tags() })
	multi(q.Categories, v.cats, func(d *mdoc) []uint32 { return d.cats() })
	multi(q.Geotags, v.geos, func(d *mdoc) []uint32 { return d.geos() })
	multi(q.RasterBands, v.bands, func(d *mdoc) []uint32 { return d.bands() })
	single := func(values []string, dc *dict, field func(*mdoc) uint32) {
		if len(values) > 0 {
			want := ids(dc, values)
			add(func(d *mdoc) bool { return slices.Contains(want, field(d)) })
		}
	}
	single(q.LicenseVersions, v.licVers, func(d *mdoc) uint32 { return d.licVer })
	single(q.VersionStatuses, v.statuses, func(d *mdoc) uint32 { return d.status })
	single(q.SourceTypes, v.sourceTypes, func(d *mdoc) uint32 { return d.sourceType })
	if len(q.GroupIDs) > 0 {
		g := q.GroupIDs
		add(func(d *mdoc) bool { return slices.Contains(g, d.group) })
	}
	if len(q.UserIDs) > 0 {
		u := q.UserIDs
		add(func(d *mdoc) bool { return slices.Contains(u, d.user) })
	}
	if o := q.Owner; o != nil {
		add(func(d *mdoc) bool {
			return d.user == o.UserID || (d.group != 0 && slices.Contains(o.GroupIDs, d.group))
		})
	}
	var inc, exc []string
	for _, t := range q.LicenseTypes {
		if x, ok := strings.CutPrefix(t, "-"); ok {
			exc = append(exc, x)
		} else {
			inc = append(inc, t)
		}
	}
	if len(inc) > 0 || len(exc) > 0 {
		incIDs, excIDs := ids(v.licenses, inc), ids(v.licenses, exc)
		hasInc := len(inc) > 0
		add(func(d *mdoc) bool {
			return (!hasInc || slices.Contains(incIDs, d.license)) && !slices.Contains(excIDs, d.license)
		})
	}
	flag := func(want *bool, field func(*mdoc) bool) {
		if want != nil {
			w := *want
			add(func(d *mdoc) bool { return field(d) == w })
		}
	}
	flag(q.HasZ, func(d *mdoc) bool { return d.hasZ })
	flag(q.HasPK, func(d *mdoc) bool { return d.hasPK })
	if q.IsImagery != nil {
		w := int8(0)
		if *q.IsImagery {
			w = 1
		}
		add(func(d *mdoc) bool { return d.imagery == w })
	}
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
	if q.Public != nil {
		w := *q.Public
		add(func(d *mdoc) bool { return (v.perms[d.perm].public >= access.View) == w })
	}
	if q.IsStarred != nil {
		w := *q.IsStarred
		add(func(d *mdoc) bool { return stars[Ref{Type: v.refOf(d).Type, ID: d.refID}] == w })
	}
	if see := v.scanVisibility(q); see != nil {
		add(see)
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

// visibility is the caller's read rule (internal/access's, evaluated on
// the view's grants): view on published docs; on latest docs, view when
// the version is published, edit otherwise. Nil when everything is
// visible (site administrators).
func (v *view) scanVisibility(q Query) func(*mdoc) bool {
	viewer := q.Viewer
	if viewer.SiteAdmin {
		return nil
	}
	// held: the level the caller's own and groups' grants give, by the
	// index of the dataset's grants (a slice: one lookup per doc).
	var held []access.Level
	for _, s := range viewer.GrantHolders() {
		for _, idx := range v.bySubject[s] {
			for _, g := range v.perms[idx].grants {
				if g.subject != s {
					continue
				}
				if held == nil {
					held = make([]access.Level, len(v.perms))
				}
				held[idx] = max(held[idx], g.level)
			}
		}
	}
	owner := viewer.OwnerLevels()
	level := func(d *mdoc) access.Level {
		l := v.perms[d.perm].public
		if held != nil {
			l = max(l, held[d.perm])
		}
		if len(owner) > 0 && d.group != 0 {
			l = max(l, owner[d.group])
		}
		return l
	}
	if q.State == Published {
		return func(d *mdoc) bool { return level(d) >= access.View }
	}
	published, _ := v.statuses.lookup(string(Published))
	return func(d *mdoc) bool {
		l := level(d)
		return l >= access.Edit || (d.status == published && l >= access.View)
	}
}
