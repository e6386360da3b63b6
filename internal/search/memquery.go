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
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
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

	r := v.match(q, stars)
	var scores []float32
	if len(terms) > 0 {
		buf := scorePool.Get().(*[]float32)
		if len(*buf) < len(v.docs) {
			*buf = make([]float32, len(v.docs))
		}
		scores = (*buf)[:len(v.docs)]
		defer func() { clear(scores); scorePool.Put(buf) }()
		r = v.text.match(v.text.queryWords(terms), r, scores)
	}
	res := Result{TotalCount: int(r.GetCardinality())}
	if q.Facets {
		res.Facets = v.facets(r, q.FacetLimit)
	}
	res.Hits, res.NextCursor, err = v.page(q, r, scores, cur)
	return res, err
}

// scorePool holds the per-slot score arrays of text queries.
var scorePool = sync.Pool{New: func() any { return new([]float32) }}

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
	if s == SortRelevance {
		return sortKey{f: float64(scores[slot]), id: v.docs[slot].id}
	}
	return keyOfDoc(s, &v.docs[slot])
}

// keyOfDoc is d's key in sort s, any but relevance.
func keyOfDoc(s Sort, d *mdoc) sortKey {
	k := sortKey{id: d.id}
	switch s {
	case SortName, SortNameDesc:
		k.s = strings.ToLower(d.title)
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

// page returns the hits of r after the cursor (or the offset) in q's
// order. A large result walks the sort's precomputed order from the
// cursor's place, keeping the slots r holds; a small one (or relevance)
// keeps only as many keys as the page needs in a bounded heap. Either
// way a deep page by cursor costs what the first does.
func (v *view) page(q Query, r *roaring.Bitmap, scores []float32, cur *cursor) ([]Hit, string, error) {
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
	slots, keys := v.walkOrder(q.Sort, r, after, n)
	if slots == nil {
		slots, keys = v.heapOrder(q.Sort, r, scores, after, n)
	}
	if skip >= len(slots) {
		return nil, "", nil
	}
	slots, keys = slots[skip:], keys[skip:]
	more := len(slots) > q.Limit
	if more {
		slots, keys = slots[:q.Limit], keys[:q.Limit]
	}
	hits := make([]Hit, 0, len(slots))
	for i, s := range slots {
		d := &v.docs[s]
		h := Hit{Ref: v.refOf(d), Kind: v.kinds.vals[d.kind], Title: d.title,
			UpdatedAt: time.UnixMicro(d.updated).UTC(), Cursor: keyCursor(q.Sort, o, keys[i])}
		if scores != nil {
			h.Score = float64(scores[s])
		}
		hits = append(hits, h)
	}
	if !more {
		return hits, "", nil
	}
	return hits, hits[len(hits)-1].Cursor, nil
}

// walkOrder returns the first n slots of r after the key after, in
// sort s's precomputed order, and their keys; nil when s has no order or
// when r is too sparse for a walk to pay (the expected steps, n × docs /
// results, exceed a few times the results), also found out on the way
// when r's slots cluster away from the walk's start.
func (v *view) walkOrder(s Sort, r *roaring.Bitmap, after *sortKey, n int) ([]int32, []sortKey) {
	perm, ok := v.ord[s]
	total := int(r.GetCardinality())
	if !ok || total == 0 || n*len(perm) > 4*total*total {
		return nil, nil
	}
	start := 0
	if after != nil {
		i, found := v.orderSearch(s, *after, -1, sortKey{})
		if found {
			i++
		}
		start = i
	}
	budget := 8*total + 4096
	slots := make([]int32, 0, n)
	for i := start; i < len(perm) && len(slots) < n; i++ {
		if budget--; budget < 0 {
			return nil, nil
		}
		if r.Contains(uint32(perm[i])) {
			slots = append(slots, perm[i])
		}
	}
	keys := make([]sortKey, len(slots))
	for i, slot := range slots {
		keys[i] = v.keyOf(s, slot, nil)
	}
	return slots, keys
}

// heapOrder returns the first n slots of r after the key after, in
// sort s's order, and their keys, by a bounded heap over r.
func (v *view) heapOrder(s Sort, r *roaring.Bitmap, scores []float32, after *sortKey, n int) ([]int32, []sortKey) {
	o := orderOf(s)
	h := &ranked{o: o}
	// By relevance, most docs are passed over on their score alone,
	// without reading the doc (its index id breaks ties only).
	rel := s == SortRelevance
	it, buf := r.ManyIterator(), make([]uint32, 512)
	for m := it.NextMany(buf); m > 0; m = it.NextMany(buf) {
		for _, x := range buf[:m] {
			slot := int32(x)
			if rel {
				f := float64(scores[slot])
				if (after != nil && f > after.f) || (len(h.keys) == n && f < h.keys[0].f) {
					continue
				}
			}
			k := v.keyOf(s, slot, scores)
			if after != nil && o.compare(k, *after) <= 0 {
				continue
			}
			if len(h.keys) < n {
				h.keys = append(h.keys, k)
				h.slots = append(h.slots, slot)
				if len(h.keys) == n {
					heap.Init(h)
				}
				continue
			}
			if o.compare(k, h.keys[0]) < 0 {
				h.keys[0], h.slots[0] = k, slot
				heap.Fix(h, 0)
			}
		}
	}
	idx := make([]int, len(h.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return o.compare(h.keys[a], h.keys[b]) })
	slots, keys := make([]int32, len(idx)), make([]sortKey, len(idx))
	for i, j := range idx {
		slots[i], keys[i] = h.slots[j], h.keys[j]
	}
	return slots, keys
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
