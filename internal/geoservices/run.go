package geoservices

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/wfsserver"
)

// Page is one page of a query's features.
type Page struct {
	Items []ogcfeatures.Item
	// Exceeded reports that more features follow (exceededTransferLimit).
	Exceeded bool
}

// maxSorted bounds the features a sorted query (orderByFields) or a
// statistics query reads.
const maxSorted = 100000

// Page reads the page of q from q.Offset. Unsorted pages are read by
// feature id after a cursor: the cursor after each page served is
// remembered, so a client paging on with resultOffset (GDAL, ArcGIS
// clients) reads no rows twice; an offset not remembered is found by the
// (version_id, fid) index when the query has no filter, else by reading
// past the rows before it once.
func (s *Service) Page(ctx context.Context, c *ogcfeatures.Collection, q *Query) (Page, error) {
	if len(q.OrderBy) > 0 {
		return s.sortedPage(ctx, c, q)
	}
	f := q.Filter(c)
	after, done, err := s.cursorAt(ctx, c, q, f)
	if err != nil || done {
		return Page{}, err
	}
	p, err := s.f.Items(ctx, c, f, after, q.Count)
	if err != nil {
		return Page{}, err
	}
	if n := len(p.Items); n > 0 {
		l := p.Items[n-1]
		s.offsets.put(offsetKey{c.VersionID, q.key, q.Offset + n}, &ogcfeatures.Cursor{FID: l.FID, Row: l.Row})
	}
	return Page{Items: p.Items, Exceeded: p.Next != nil}, nil
}

// cursorAt is the position before the q.Offset-th match; done when there
// are fewer matches.
func (s *Service) cursorAt(ctx context.Context, c *ogcfeatures.Collection, q *Query, f ogcfeatures.Filter) (*ogcfeatures.Cursor, bool, error) {
	if q.Offset == 0 {
		return nil, false, nil
	}
	if cur, ok := s.offsets.get(offsetKey{c.VersionID, q.key, q.Offset}); ok {
		return cur, false, nil
	}
	if q.Where == nil && q.ObjectIDs == nil && q.Geometry == nil {
		return s.nthRow(ctx, c, q.Offset)
	}
	var after *ogcfeatures.Cursor
	for left := q.Offset; left > 0; {
		p, err := s.f.Items(ctx, c, f, after, min(left, ogcfeatures.MaxLimit))
		if err != nil {
			return nil, false, err
		}
		if len(p.Items) == 0 {
			return nil, true, nil
		}
		left -= len(p.Items)
		l := p.Items[len(p.Items)-1]
		after = &ogcfeatures.Cursor{FID: l.FID, Row: l.Row}
		if p.Next == nil && left > 0 {
			return nil, true, nil
		}
	}
	return after, false, nil
}

// nthRow is the position of the version's n-th row (1-based) in (fid, id)
// order, read on the (version_id, fid) index.
func (s *Service) nthRow(ctx context.Context, c *ogcfeatures.Collection, n int) (*ogcfeatures.Cursor, bool, error) {
	st := s.f.Store()
	q := "SELECT fid, id FROM features WHERE version_id = ? ORDER BY fid, id LIMIT 1 OFFSET ?"
	if st.Dialect == dialect.Postgres {
		q = "SELECT fid, id FROM features WHERE version_id = $1 ORDER BY fid, id LIMIT 1 OFFSET $2"
	}
	var cur ogcfeatures.Cursor
	err := st.DB.QueryRowContext(ctx, q, c.VersionID, n-1).Scan(&cur.FID, &cur.Row)
	if err == sql.ErrNoRows {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("geoservices: version %d: %w", c.VersionID, err)
	}
	return &cur, false, nil
}

// Each calls fn with every feature q matches (ignoring its paging), in
// feature id order, stopping at fn's error.
func (s *Service) Each(ctx context.Context, c *ogcfeatures.Collection, q *Query, fn func(ogcfeatures.Item) error) error {
	f := q.Filter(c)
	var after *ogcfeatures.Cursor
	for {
		p, err := s.f.Items(ctx, c, f, after, ogcfeatures.MaxLimit)
		if err != nil {
			return err
		}
		for _, it := range p.Items {
			if err := fn(it); err != nil {
				return err
			}
		}
		if p.Next == nil {
			return nil
		}
		after = p.Next
	}
}

// Count is the number of features q matches.
func (s *Service) Count(ctx context.Context, c *ogcfeatures.Collection, q *Query) (int64, error) {
	if q.Where == nil && q.ObjectIDs == nil && q.Geometry == nil {
		return c.FeatureCount, nil
	}
	var n int64
	err := s.Each(ctx, c, q, func(ogcfeatures.Item) error { n++; return nil })
	return n, err
}

// IDs are the object ids q matches, in order (sorted by q's order when
// it has one).
func (s *Service) IDs(ctx context.Context, c *ogcfeatures.Collection, q *Query) ([]int64, error) {
	if len(q.OrderBy) > 0 {
		order, err := s.order(ctx, c, q)
		if err != nil {
			return nil, err
		}
		out := make([]int64, len(order))
		for i, o := range order {
			out[i] = o.FID
		}
		return out, nil
	}
	out := []int64{}
	err := s.Each(ctx, c, q, func(it ogcfeatures.Item) error { out = append(out, it.FID); return nil })
	return out, err
}

// Extent is the box of q's matches in CRS84 and their number; ok is
// false when none has a geometry.
func (s *Service) Extent(ctx context.Context, c *ogcfeatures.Collection, q *Query, p *Projector) (box [4]float64, n int64, ok bool, err error) {
	box = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	err = s.Each(ctx, c, q, func(it ogcfeatures.Item) error {
		n++
		g, err := ogcfeatures.Geometry(it.Geom, nil)
		if err != nil || g == nil || g.Empty() {
			return nil
		}
		if err := p.Forward(g); err != nil {
			return nil
		}
		b := g.Bounds()
		box = [4]float64{min(box[0], b.Min(0)), min(box[1], b.Min(1)), max(box[2], b.Max(0)), max(box[3], b.Max(1))}
		ok = true
		return nil
	})
	return box, n, ok, err
}

// --- sorted pages ---

type orderKey struct {
	version int
	query   string
}

const maxOrders = 16

// orderCache remembers sorted matches as their rows' positions, so that
// pages after the first are read by feature id.
type orderCache struct {
	mu sync.Mutex
	m  map[orderKey][]ogcfeatures.Cursor
}

func (c *orderCache) get(k orderKey) ([]ogcfeatures.Cursor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[k]
	return o, ok
}

func (c *orderCache) put(k orderKey, o []ogcfeatures.Cursor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxOrders {
		c.m = map[orderKey][]ogcfeatures.Cursor{}
	}
	c.m[k] = o
}

type offsetKey struct {
	version int
	query   string
	offset  int
}

const maxOffsets = 4096

// offsetCache remembers the cursor after each page served.
type offsetCache struct {
	mu sync.Mutex
	m  map[offsetKey]*ogcfeatures.Cursor
}

func (c *offsetCache) get(k offsetKey) (*ogcfeatures.Cursor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[k]
	return o, ok
}

func (c *offsetCache) put(k offsetKey, cur *ogcfeatures.Cursor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxOffsets {
		c.m = map[offsetKey]*ogcfeatures.Cursor{}
	}
	c.m[k] = cur
}

func (q *Query) orderKey(c *ogcfeatures.Collection) orderKey {
	var b strings.Builder
	b.WriteString(q.key)
	for _, k := range q.OrderBy {
		b.WriteString("\x00" + k.Name)
		if k.Desc {
			b.WriteString(" desc")
		}
	}
	return orderKey{c.VersionID, b.String()}
}

// order is q's whole match sorted by q.OrderBy then feature id.
func (s *Service) order(ctx context.Context, c *ogcfeatures.Collection, q *Query) ([]ogcfeatures.Cursor, error) {
	k := q.orderKey(c)
	if o, ok := s.orders.get(k); ok {
		return o, nil
	}
	type sorted struct {
		cur  ogcfeatures.Cursor
		keys []any
	}
	var all []sorted
	err := s.Each(ctx, c, q, func(it ogcfeatures.Item) error {
		if len(all) >= maxSorted {
			return BadRequest("Unable to complete operation.", fmt.Sprintf("orderByFields sorts at most %d features and this query matches more: narrow it with where or geometry", maxSorted))
		}
		var props map[string]any
		_ = json.Unmarshal(it.Attrs, &props)
		keys := make([]any, len(q.OrderBy))
		for i, f := range q.OrderBy {
			if f.Name == ObjectIDField {
				keys[i] = float64(it.FID)
			} else {
				keys[i] = props[f.Name]
			}
		}
		all = append(all, sorted{ogcfeatures.Cursor{FID: it.FID, Row: it.Row}, keys})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b sorted) int {
		for i, f := range q.OrderBy {
			c := wfsserver.CompareValues(a.keys[i], b.keys[i])
			if f.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(a.cur.FID, b.cur.FID), cmp.Compare(a.cur.Row, b.cur.Row))
	})
	out := make([]ogcfeatures.Cursor, len(all))
	for i, a := range all {
		out[i] = a.cur
	}
	s.orders.put(k, out)
	return out, nil
}

// sortedPage cuts q's page from its sorted match and reads its rows by
// feature id.
func (s *Service) sortedPage(ctx context.Context, c *ogcfeatures.Collection, q *Query) (Page, error) {
	order, err := s.order(ctx, c, q)
	if err != nil {
		return Page{}, err
	}
	start := min(q.Offset, len(order))
	end := min(start+q.Count, len(order))
	page := order[start:end]
	if len(page) == 0 {
		return Page{}, nil
	}
	at := make(map[ogcfeatures.Cursor]int, len(page))
	f := ogcfeatures.Filter{Collection: c, FIDs: make([]int64, 0, len(page))}
	for i, cur := range page {
		at[cur] = i
		f.FIDs = append(f.FIDs, cur.FID)
	}
	out := make([]ogcfeatures.Item, len(page))
	found := 0
	var after *ogcfeatures.Cursor
	for {
		p, err := s.f.Items(ctx, c, f, after, ogcfeatures.MaxLimit)
		if err != nil {
			return Page{}, err
		}
		for _, it := range p.Items {
			if i, ok := at[ogcfeatures.Cursor{FID: it.FID, Row: it.Row}]; ok {
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
		return Page{}, fmt.Errorf("geoservices: version %d: %d of a sorted page's rows are gone", c.VersionID, len(page)-found)
	}
	return Page{Items: out, Exceeded: end < len(order)}, nil
}

// --- statistics ---

// StatisticsRows computes q.Statistics over q's matches, one row per
// group of q.GroupBy values (one row without), groups in value order.
func (s *Service) StatisticsRows(ctx context.Context, c *ogcfeatures.Collection, q *Query) ([]map[string]any, error) {
	type acc struct {
		n          []int64
		sum, sumSq []float64
		lo, hi     []any
	}
	groups := map[string]*acc{}
	groupVals := map[string][]any{}
	read := 0
	err := s.Each(ctx, c, q, func(it ogcfeatures.Item) error {
		if read++; read > maxSorted {
			return BadRequest("Unable to complete operation.", fmt.Sprintf("outStatistics reads at most %d features and this query matches more: narrow it with where or geometry", maxSorted))
		}
		var props map[string]any
		_ = json.Unmarshal(it.Attrs, &props)
		props[ObjectIDField] = float64(it.FID)
		gv := make([]any, len(q.GroupBy))
		for i, g := range q.GroupBy {
			gv[i] = props[g]
		}
		kb, _ := json.Marshal(gv)
		a := groups[string(kb)]
		if a == nil {
			n := len(q.Statistics)
			a = &acc{n: make([]int64, n), sum: make([]float64, n), sumSq: make([]float64, n), lo: make([]any, n), hi: make([]any, n)}
			groups[string(kb)] = a
			groupVals[string(kb)] = gv
		}
		for i, st := range q.Statistics {
			v, present := props[st.Field]
			if st.Field == "*" || st.Field == "1" {
				v, present = true, true
			}
			if !present || v == nil {
				continue
			}
			a.n[i]++
			if x, ok := v.(float64); ok {
				a.sum[i] += x
				a.sumSq[i] += x * x
			}
			if a.lo[i] == nil || wfsserver.CompareValues(v, a.lo[i]) < 0 {
				a.lo[i] = v
			}
			if a.hi[i] == nil || wfsserver.CompareValues(v, a.hi[i]) > 0 {
				a.hi[i] = v
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 && len(q.GroupBy) == 0 {
		n := len(q.Statistics)
		groups["[]"] = &acc{n: make([]int64, n), sum: make([]float64, n), sumSq: make([]float64, n), lo: make([]any, n), hi: make([]any, n)}
		groupVals["[]"] = nil
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ga, gb := groupVals[a], groupVals[b]
		for i := range ga {
			if c := wfsserver.CompareValues(ga[i], gb[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	out := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		a := groups[k]
		row := map[string]any{}
		for i, g := range q.GroupBy {
			row[g] = groupVals[k][i]
		}
		for i, st := range q.Statistics {
			n := float64(a.n[i])
			var v any
			switch st.Type {
			case "count":
				v = a.n[i]
			case "sum":
				if a.n[i] > 0 {
					v = a.sum[i]
				}
			case "min":
				v = a.lo[i]
			case "max":
				v = a.hi[i]
			case "avg":
				if a.n[i] > 0 {
					v = a.sum[i] / n
				}
			case "var", "stddev":
				// Sample variance, as ArcGIS and PostgreSQL give it.
				if a.n[i] > 1 {
					vr := (a.sumSq[i] - a.sum[i]*a.sum[i]/n) / (n - 1)
					vr = max(vr, 0)
					if st.Type == "stddev" {
						vr = math.Sqrt(vr)
					}
					v = vr
				}
			}
			row[st.Out] = v
		}
		out = append(out, row)
	}
	return out, nil
}
