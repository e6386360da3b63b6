package search

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/access"
)

// Search implements Index: the view is brought up to date, then the
// query is evaluated in memory (see memview.go).
func (ix *sqlIndex) Search(ctx context.Context, q Query) (Result, error) {
	q, terms, err := q.normalized()
	if err != nil {
		return Result{}, err
	}
	var cur *cursor
	if q.Cursor != "" {
		c, err := decodeCursor(q.Cursor, q.Sort)
		if err != nil {
			return Result{}, err
		}
		cur = &c
	}
	var stars map[Ref]bool
	if q.IsStarred != nil {
		if stars, err = ix.starsOf(ctx, q.Viewer.UserID); err != nil {
			return Result{}, err
		}
	}
	if err := ix.sync(ctx); err != nil {
		return Result{}, err
	}
	v := ix.view
	v.mu.RLock()
	defer v.mu.RUnlock()

	var scores []float32
	var candidates []int32
	if len(terms) > 0 {
		scores = make([]float32, len(v.docs))
		candidates = v.text.score(v.text.queryWords(terms), scores, func(s int32) int32 { return v.docs[s].text.len })
	} else {
		candidates = make([]int32, 0, v.live)
		for s := range v.docs {
			if v.docs[s].id != 0 {
				candidates = append(candidates, int32(s))
			}
		}
	}
	keep := v.filter(q, stars)
	matched := candidates[:0]
	for _, s := range candidates {
		if keep(&v.docs[s]) {
			matched = append(matched, s)
		}
	}
	res := Result{TotalCount: len(matched)}
	if q.Facets {
		res.Facets = v.facets(matched, q.FacetLimit)
	}
	res.Hits, res.NextCursor, err = v.page(q, matched, scores, cur)
	return res, err
}

// starsOf reads the datasets a user starred.
func (ix *sqlIndex) starsOf(ctx context.Context, userID int) (map[Ref]bool, error) {
	out := map[Ref]bool{}
	if userID == 0 {
		return out, nil
	}
	rows, err := ix.db.QueryContext(ctx, ix.rebind("SELECT doc_type, doc_id FROM search_stars WHERE user_id = ?"), userID)
	if err != nil {
		return nil, fmt.Errorf("search: reading stars: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Ref
		if err := rows.Scan(&r.Type, &r.ID); err != nil {
			return nil, fmt.Errorf("search: reading stars: %w", err)
		}
		out[r] = true
	}
	return out, rows.Err()
}

// ids maps filter values onto dictionary ids; values no doc has are left
// out (so a filter whose values are all unknown matches nothing).
func ids(d *dict, values []string) []uint32 {
	var out []uint32
	for _, s := range values {
		if id, ok := d.lookup(s); ok {
			out = append(out, id)
		}
	}
	return out
}

func anyIn(have, want []uint32) bool {
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}

// filter compiles q's filters, state and the caller's permissions into
// one predicate over docs.
func (v *view) filter(q Query, stars map[Ref]bool) func(*mdoc) bool {
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
			add(func(d *mdoc) bool { return anyIn(field(d), want) })
		}
	}
	multi(q.Tags, v.tags, func(d *mdoc) []uint32 { return d.tags })
	multi(q.Categories, v.cats, func(d *mdoc) []uint32 { return d.cats })
	multi(q.Geotags, v.geos, func(d *mdoc) []uint32 { return d.geos })
	multi(q.RasterBands, v.bands, func(d *mdoc) []uint32 { return d.bands })
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
		add(func(d *mdoc) bool { return stars[Ref{Type: d.ref.Type, ID: d.ref.ID}] == w })
	}
	if see := v.visibility(q); see != nil {
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
func (v *view) visibility(q Query) func(*mdoc) bool {
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

// sortKey is a doc's place in a sort.
type sortKey struct {
	f  float64
	i  int64
	s  string
	id int64
}

// order compares sort keys for one sort.
type order struct {
	field byte // 'f' score, 'i' integer, 's' text
	desc  bool
}

func orderOf(s Sort) order {
	switch s {
	case SortRelevance:
		return order{'f', true}
	case SortName:
		return order{'s', false}
	case SortNameDesc:
		return order{'s', true}
	case SortCreated, SortUpdated:
		return order{'i', true}
	case SortCreatedOld, SortUpdatedOld:
		return order{'i', false}
	}
	return order{'i', true} // popularity
}

func (o order) compare(x, y sortKey) int {
	var c int
	switch o.field {
	case 'f':
		c = cmp.Compare(x.f, y.f)
	case 's':
		c = strings.Compare(x.s, y.s)
	default:
		c = cmp.Compare(x.i, y.i)
	}
	if o.desc {
		c = -c
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(x.id, y.id)
}

func (v *view) keyOf(s Sort, slot int32, scores []float32) sortKey {
	d := &v.docs[slot]
	k := sortKey{id: d.id}
	switch s {
	case SortRelevance:
		k.f = float64(scores[slot])
	case SortName, SortNameDesc:
		k.s = d.sortTitle
	case SortCreated, SortCreatedOld:
		k.i = d.created
	case SortUpdated, SortUpdatedOld:
		k.i = d.updated
	default:
		k.i = d.popularity
	}
	return k
}

// cursorKey is the sort key a cursor stands at.
func cursorKey(c cursor, s Sort) (sortKey, error) {
	k := sortKey{id: c.ID}
	val, err := c.value(s)
	if err != nil {
		return k, err
	}
	switch x := val.(type) {
	case float64:
		k.f = x
	case int64:
		k.i = x
	case string:
		k.s = x
	}
	return k, nil
}

// ranked is a bounded heap keeping the first n keys of an order; its top
// is the last of them.
type ranked struct {
	o     order
	keys  []sortKey
	slots []int32
}

func (r *ranked) Len() int           { return len(r.keys) }
func (r *ranked) Less(i, j int) bool { return r.o.compare(r.keys[i], r.keys[j]) > 0 }
func (r *ranked) Swap(i, j int) {
	r.keys[i], r.keys[j] = r.keys[j], r.keys[i]
	r.slots[i], r.slots[j] = r.slots[j], r.slots[i]
}
func (r *ranked) Push(x any) { panic("unused") }
func (r *ranked) Pop() any   { panic("unused") }

// page returns the hits after the cursor (or the offset) in q's order,
// keeping only as many keys as the page needs: a deep page by cursor
// costs what the first does.
func (v *view) page(q Query, matched []int32, scores []float32, cur *cursor) ([]Hit, string, error) {
	o := orderOf(q.Sort)
	var after *sortKey
	if cur != nil {
		k, err := cursorKey(*cur, q.Sort)
		if err != nil {
			return nil, "", err
		}
		after = &k
	}
	skip := 0
	if cur == nil {
		skip = q.Offset
	}
	n := skip + q.Limit + 1
	r := &ranked{o: o}
	for _, s := range matched {
		k := v.keyOf(q.Sort, s, scores)
		if after != nil && o.compare(k, *after) <= 0 {
			continue
		}
		if len(r.keys) < n {
			r.keys = append(r.keys, k)
			r.slots = append(r.slots, s)
			if len(r.keys) == n {
				heap.Init(r)
			}
			continue
		}
		if o.compare(k, r.keys[0]) < 0 {
			r.keys[0], r.slots[0] = k, s
			heap.Fix(r, 0)
		}
	}
	idx := make([]int, len(r.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return o.compare(r.keys[a], r.keys[b]) })
	if skip >= len(idx) {
		return nil, "", nil
	}
	idx = idx[skip:]
	more := len(idx) > q.Limit
	if more {
		idx = idx[:q.Limit]
	}
	hits := make([]Hit, 0, len(idx))
	for _, i := range idx {
		d := &v.docs[r.slots[i]]
		h := Hit{Ref: d.ref, Kind: v.kinds.vals[d.kind], Title: d.title,
			UpdatedAt: time.UnixMicro(d.updated).UTC(), Cursor: keyCursor(q.Sort, o, r.keys[i])}
		if scores != nil {
			h.Score = float64(scores[r.slots[i]])
		}
		hits = append(hits, h)
	}
	if !more {
		return hits, "", nil
	}
	return hits, hits[len(hits)-1].Cursor, nil
}

// keyCursor is the cursor continuing after the hit whose sort key is k.
func keyCursor(s Sort, o order, k sortKey) string {
	c := cursor{Sort: s, ID: k.id}
	switch o.field {
	case 'f':
		c.Key = json.Number(strconv.FormatFloat(k.f, 'g', -1, 64))
	case 's':
		c.Str = k.s
	default:
		c.Key = json.Number(strconv.FormatInt(k.i, 10))
	}
	return c.encode()
}
