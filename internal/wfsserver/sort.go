package wfsserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// SortKey is one property of SORTBY (or fes:SortBy): an element name
// without prefix, descending or not.
type SortKey struct {
	Name string
	Desc bool
}

// maxSorted bounds the features a sorted request reads and holds: the
// whole match is sorted before a page is cut from it.
const maxSorted = 100000

// parseSortBy reads SORTBY: "name ASC,value DESC" (WFS 2.0 7.9.2.4.5),
// also the "name A" / "name D" of WFS 1.1 and a bare name (ascending).
func parseSortBy(s string) ([]SortKey, error) {
	var out []SortKey
	for _, part := range strings.Split(s, ",") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		if len(f) > 2 {
			return nil, invalid("sortBy", "sortBy takes name [ASC|DESC] pairs separated by commas, not %q", clip(part))
		}
		k := SortKey{Name: f[0]}
		if _, local, ok := strings.Cut(k.Name, ":"); ok {
			k.Name = local
		}
		if len(f) == 2 {
			switch strings.ToUpper(f[1]) {
			case "ASC", "A":
			case "DESC", "D":
				k.Desc = true
			default:
				return nil, invalid("sortBy", "sortBy: the order of %s must be ASC or DESC, not %q", clip(k.Name), clip(f[1]))
			}
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, invalid("sortBy", "sortBy names no property")
	}
	return out, nil
}

// sortField is a SortKey resolved to a stored attribute.
type sortField struct {
	name string
	desc bool
}

// sortFields resolves keys against t's properties.
func (t *featureType) sortFields(keys []SortKey) ([]sortField, error) {
	if t.changeset {
		return nil, invalid("sortBy", "a changeset type cannot be sorted: it is given in change order")
	}
	var out []sortField
	for _, k := range keys {
		f, ok := t.byElement[k.Name]
		if !ok {
			if k.Name == t.geomElement {
				return nil, invalid("sortBy", "%s cannot be sorted by its geometry", t.name)
			}
			return nil, invalid("sortBy", "%q is not a property of %s", clip(k.Name), t.name)
		}
		out = append(out, sortField{name: f.Name, desc: k.Desc})
	}
	return out, nil
}

// sortedItem is a match with its sort values.
type sortedItem struct {
	it   of.Item
	keys []any
}

// orderKey names a sorted match: a published version (which never
// changes), the query's filters and its sort.
type orderKey struct {
	version int
	query   string
}

// maxOrders bounds the sorted matches remembered; beyond it they are all
// dropped (a client paging through one reads it again once).
const maxOrders = 16

// orderCache remembers sorted matches as the positions of their rows, so
// that the pages after the first are read by feature id.
type orderCache struct {
	mu sync.Mutex
	m  map[orderKey][]of.Cursor
}

func (c *orderCache) get(k orderKey) ([]of.Cursor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[k]
	return o, ok
}

func (c *orderCache) put(k orderKey, o []of.Cursor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxOrders {
		c.m = map[orderKey][]of.Cursor{}
	}
	c.m[k] = o
}

func (q *query) orderKey() orderKey {
	var b strings.Builder
	b.WriteString(q.key)
	for _, f := range q.sort {
		b.WriteString("\x00" + f.name)
		if f.desc {
			b.WriteString(" desc")
		}
	}
	return orderKey{q.t.c.VersionID, b.String()}
}

// sortedPage returns the page of q's sorted match from q.start, with the
// number matched: cut from a remembered order, else sorted afresh.
func (s *Service) sortedPage(ctx context.Context, q *query) ([]of.Item, int64, error) {
	k := q.orderKey()
	order, ok := s.orders.get(k)
	if !ok {
		return s.sortAll(ctx, q, k)
	}
	start := min(q.start, len(order))
	page := order[start:min(start+q.count, len(order))]
	if len(page) == 0 {
		return nil, int64(len(order)), nil
	}
	at := make(map[of.Cursor]int, len(page))
	f := of.Filter{Collection: q.t.c, FIDs: make([]int64, 0, len(page))}
	for i, c := range page {
		at[c] = i
		f.FIDs = append(f.FIDs, c.FID)
	}
	out := make([]of.Item, len(page))
	found := 0
	var after *of.Cursor
	for {
		p, err := s.f.Items(ctx, q.t.c, f, after, of.MaxLimit)
		if err != nil {
			return nil, 0, err
		}
		for _, it := range p.Items {
			if i, ok := at[of.Cursor{FID: it.FID, Row: it.Row}]; ok {
				out[i] = it
				found++
			}
		}
		if p.Next == nil {
			break
		}
		after = p.Next
	}
	if found != len(page) {
		return nil, 0, fmt.Errorf("wfs: version %d: %d of a sorted page's %d rows are gone", q.t.c.VersionID, len(page)-found, len(page))
	}
	return out, int64(len(order)), nil
}

// sortAll reads every feature q matches, sorts them by q's sort fields
// then by feature id, remembers the order under k and returns the page
// from q.start, with the number matched.
func (s *Service) sortAll(ctx context.Context, q *query, k orderKey) ([]of.Item, int64, error) {
	var all []sortedItem
	var after *of.Cursor
	for {
		p, err := s.f.Items(ctx, q.t.c, q.filter, after, of.MaxLimit)
		if err != nil {
			return nil, 0, err
		}
		for _, it := range p.Items {
			var props map[string]any
			_ = json.Unmarshal(it.Attrs, &props)
			keys := make([]any, len(q.sort))
			for i, f := range q.sort {
				keys[i] = props[f.name]
			}
			all = append(all, sortedItem{it: it, keys: keys})
		}
		if len(all) > maxSorted {
			return nil, 0, invalid("sortBy", "sortBy sorts at most %d features and this query matches more: narrow it with a filter or bbox", maxSorted)
		}
		if p.Next == nil {
			break
		}
		after = p.Next
	}
	slices.SortFunc(all, func(a, b sortedItem) int {
		for i, f := range q.sort {
			c := compareValues(a.keys[i], b.keys[i])
			if f.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(a.it.FID, b.it.FID), cmp.Compare(a.it.Row, b.it.Row))
	})
	order := make([]of.Cursor, len(all))
	for i, si := range all {
		order[i] = of.Cursor{FID: si.it.FID, Row: si.it.Row}
	}
	s.orders.put(k, order)
	start := min(q.start, len(all))
	end := min(start+q.count, len(all))
	out := make([]of.Item, 0, end-start)
	for _, si := range all[start:end] {
		out = append(out, si.it)
	}
	return out, int64(len(all)), nil
}

// compareValues orders attribute values: false before true, numbers by
// value, strings by code point; values of different kinds by kind
// (boolean, number, string); null after every value (so last ascending
// and first descending, as PostgreSQL orders NULL).
func compareValues(a, b any) int {
	ra, rb := kindRank(a), kindRank(b)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case float64:
		return cmp.Compare(x, b.(float64))
	case string:
		return strings.Compare(x, b.(string))
	}
	return 0
}

func kindRank(v any) int {
	switch v.(type) {
	case bool:
		return 0
	case float64:
		return 1
	case string:
		return 2
	case nil:
		return 4
	}
	return 3 // objects and arrays, unordered among themselves
}
