package datatable

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/twpayne/go-geom/encoding/wkt"

	of "github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/wfsserver"
)

// Row is one row of a view: its feature id, the values of the view's
// fields in order (JSON; null for a missing value) and, when asked for,
// its geometry as WKT (empty for none).
type Row struct {
	FID    int64
	Values []json.RawMessage
	WKT    string
}

// Page is one page of a view.
type Page struct {
	Rows []Row
	// Matched is the number of rows of the whole view.
	Matched int64
	// Next is the keyset cursor of the following page (views in feature
	// id order), nil on the last or for ordered views.
	Next *of.Cursor
	// NextOffset is the offset of the following page of an ordered view,
	// -1 on the last or for keyset views.
	NextOffset int
}

// filter is q's filter over t as ogcfeatures applies it.
func (q Query) filter(t *Table) of.Filter {
	return of.Filter{Props: q.Props, Expr: q.Filter, Collection: t.c, Within: of.SpatialBounds(q.Filter, t.c)}
}

// Rows reads one page of view q of t.
func (s *Service) Rows(ctx context.Context, t *Table, q Query) (Page, error) {
	page := Page{NextOffset: -1}
	if !q.Ordered() {
		p, err := s.f.Items(ctx, t.c, of.Filter{Collection: t.c}, q.After, q.Limit)
		if err != nil {
			return page, err
		}
		page.Matched, page.Next = t.Count, p.Next
		page.Rows, err = rowsOf(p.Items, q)
		return page, err
	}
	order, err := s.order(ctx, t, q)
	if err != nil {
		return page, err
	}
	page.Matched = int64(len(order))
	start := min(q.Offset, len(order))
	end := min(start+q.Limit, len(order))
	if end < len(order) {
		page.NextOffset = end
	}
	items, err := s.fetch(ctx, t, order[start:end])
	if err != nil {
		return page, err
	}
	page.Rows, err = rowsOf(items, q)
	return page, err
}

// Count is the number of rows of view q, reading (and remembering) an
// ordered view's match.
func (s *Service) Count(ctx context.Context, t *Table, q Query) (int64, error) {
	if !q.Ordered() {
		return t.Count, nil
	}
	order, err := s.order(ctx, t, q)
	return int64(len(order)), err
}

// Each calls fn with every row of view q from its offset (all of them,
// whatever the limit), in the view's order, at most max rows: the CSV
// download. Rows are read a thousand at a time.
func (s *Service) Each(ctx context.Context, t *Table, q Query, max int, fn func(Row) error) error {
	const chunk = MaxLimit
	if !q.Ordered() {
		after, n := q.After, 0
		for n < max {
			p, err := s.f.Items(ctx, t.c, of.Filter{Collection: t.c}, after, min(chunk, max-n))
			if err != nil {
				return err
			}
			rows, err := rowsOf(p.Items, q)
			if err != nil {
				return err
			}
			for _, r := range rows {
				if err := fn(r); err != nil {
					return err
				}
			}
			n += len(rows)
			if p.Next == nil {
				break
			}
			after = p.Next
		}
		return nil
	}
	order, err := s.order(ctx, t, q)
	if err != nil {
		return err
	}
	order = order[min(q.Offset, len(order)):]
	order = order[:min(max, len(order))]
	for len(order) > 0 {
		part := order[:min(chunk, len(order))]
		order = order[len(part):]
		items, err := s.fetch(ctx, t, part)
		if err != nil {
			return err
		}
		rows, err := rowsOf(items, q)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowsOf turns stored items into rows of q's fields.
func rowsOf(items []of.Item, q Query) ([]Row, error) {
	out := make([]Row, len(items))
	for i, it := range items {
		var m map[string]json.RawMessage
		if len(it.Attrs) > 0 {
			if err := json.Unmarshal(it.Attrs, &m); err != nil {
				return nil, fmt.Errorf("datatable: attributes of feature %d: %w", it.FID, err)
			}
		}
		r := Row{FID: it.FID, Values: make([]json.RawMessage, len(q.Fields))}
		for j, f := range q.Fields {
			v, ok := m[f]
			if !ok || len(v) == 0 {
				v = json.RawMessage("null")
			}
			r.Values[j] = v
		}
		if q.WKT {
			g, err := of.Geometry(it.Geom, nil)
			if err != nil {
				return nil, fmt.Errorf("datatable: geometry of feature %d: %w", it.FID, err)
			}
			if g != nil {
				if r.WKT, err = wkt.Marshal(g); err != nil {
					return nil, fmt.Errorf("datatable: geometry of feature %d: %w", it.FID, err)
				}
			}
		}
		out[i] = r
	}
	return out, nil
}

// fetch reads the rows at positions, in that order.
func (s *Service) fetch(ctx context.Context, t *Table, positions []of.Cursor) ([]of.Item, error) {
	if len(positions) == 0 {
		return nil, nil
	}
	at := make(map[of.Cursor]int, len(positions))
	f := of.Filter{Collection: t.c, FIDs: make([]int64, 0, len(positions))}
	for i, c := range positions {
		at[c] = i
		f.FIDs = append(f.FIDs, c.FID)
	}
	slices.Sort(f.FIDs)
	f.FIDs = slices.Compact(f.FIDs)
	out := make([]of.Item, len(positions))
	found := 0
	var after *of.Cursor
	for {
		p, err := s.f.Items(ctx, t.c, f, after, of.MaxLimit)
		if err != nil {
			return nil, err
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
	if found != len(positions) {
		return nil, fmt.Errorf("datatable: version %d: %d of %d rows are gone", t.VersionID, len(positions)-found, len(positions))
	}
	return out, nil
}

// order is the whole match of an ordered view as row positions, sorted:
// remembered, else read and sorted afresh.
func (s *Service) order(ctx context.Context, t *Table, q Query) ([]of.Cursor, error) {
	k := orderKeyOf(t, q)
	if o, ok := s.orders.get(k); ok {
		return o, nil
	}
	type sorted struct {
		pos  of.Cursor
		keys []any
	}
	var all []sorted
	var after *of.Cursor
	f := q.filter(t)
	for {
		p, err := s.f.Items(ctx, t.c, f, after, of.MaxLimit)
		if err != nil {
			return nil, err
		}
		for _, it := range p.Items {
			var keys []any
			if len(q.Sort) > 0 {
				var props map[string]any
				_ = json.Unmarshal(it.Attrs, &props)
				keys = make([]any, len(q.Sort))
				for i, sk := range q.Sort {
					keys[i] = props[sk.Field]
				}
			}
			all = append(all, sorted{pos: of.Cursor{FID: it.FID, Row: it.Row}, keys: keys})
		}
		if len(all) > MaxOrdered {
			return nil, invalid("a sorted or filtered view holds at most %d rows and this one matches more: narrow it with a filter", MaxOrdered)
		}
		if p.Next == nil {
			break
		}
		after = p.Next
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		for n, sk := range q.Sort {
			c := wfsserver.CompareValues(a.keys[n], b.keys[n])
			if sk.Desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return cmp.Or(cmp.Compare(a.pos.FID, b.pos.FID), cmp.Compare(a.pos.Row, b.pos.Row)) < 0
	})
	out := make([]of.Cursor, len(all))
	for i, a := range all {
		out[i] = a.pos
	}
	s.orders.put(k, out)
	return out, nil
}

// orderKey names an ordered view's match: a published version (which
// never changes), its filters and its sort.
type orderKey struct {
	version int
	view    string
}

func orderKeyOf(t *Table, q Query) orderKey {
	var b strings.Builder
	b.WriteString(q.FilterText)
	names := make([]string, 0, len(q.Props))
	for n := range q.Props {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		b.WriteString("\x00p" + n + "=" + q.Props[n])
	}
	for _, sk := range q.Sort {
		b.WriteString("\x00s" + sk.Field)
		if sk.Desc {
			b.WriteString(" desc")
		}
	}
	return orderKey{t.VersionID, b.String()}
}

// maxOrders bounds the matches remembered; beyond it they are all
// dropped (a client paging through one reads it again once).
const maxOrders = 16

// orderCache remembers ordered views' matches, so that the pages after
// the first (and their CSV) are read by feature id.
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
