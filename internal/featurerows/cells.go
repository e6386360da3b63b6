package featurerows

import (
	"cmp"
	"math"
	"slices"

	"github.com/geopub/geopub/internal/cellkey"
)

// Both stores index feature boxes by their cell key (internal/cellkey) in
// a B-tree on (version_id, cell, minx, maxx, miny, maxy); this file turns
// query boxes into intervals of keys.

// cellSlack widens every cell in lookups (degrees), so that rounding when
// a key was computed cannot lose a box lying on a cell's edge.
const cellSlack = 1e-9

// cellKey returns the key of box b (minx, miny, maxx, maxy).
func cellKey(b Box) int64 { return cellkey.Key(b[0], b[1], b[2], b[3]) }

// cellSpan is an interval of keys, both ends included.
type cellSpan struct{ lo, hi int64 }

// cell is one node of the quadtree walked by cellSpans.
type cell struct {
	level  int
	ix, iy uint32
}

func (c cell) id() int64 { return cellkey.ID(c.level, c.ix, c.iy) }

// span is c's key and its descendants' keys.
func (c cell) span() cellSpan {
	id := c.id()
	lsb := int64(1) << (2 * (cellkey.MaxLevel - c.level))
	return cellSpan{id - lsb + 1, id + lsb - 1}
}

// reach is the region holding every box keyed to c or to a descendant of
// c: the cell grown by its own size to the right and upwards, plus slack.
func (c cell) reach() Box {
	w, h := cellkey.Width(c.level), cellkey.Height(c.level)
	x, y := float64(c.ix)*w-180, float64(c.iy)*h-90
	return Box{x - cellSlack, y - cellSlack, x + 2*w + cellSlack, y + 2*h + cellSlack}
}

// inside reports whether c itself lies within q.
func (c cell) inside(q Box) bool {
	w, h := cellkey.Width(c.level), cellkey.Height(c.level)
	x, y := float64(c.ix)*w-180, float64(c.iy)*h-90
	return x >= q[0] && x+w <= q[2] && y >= q[1] && y+h <= q[3]
}

func meets(a, b Box) bool { return a[0] <= b[2] && a[2] >= b[0] && a[1] <= b[3] && a[3] >= b[1] }

// budget bounds a lookup: the quadtree is refined while the cells to
// refine have at most spans children and fewer than keys single keys have
// been taken on the way down. Coarser cells read more candidate rows; more
// spans make a longer statement. PostgreSQL plans each statement afresh,
// and its planning grows with the arms (8 spans gave 45 ms z14 lookups
// through huge intervals, 16 gave 35-39 ms z8 ones, 32 is kept); SQLite
// keeps compiled statements, and its index entries cost more to read than
// its arms (128 spans: items of a 0.1° box 1.7 → 0.9 ms,
// bench/boxindex/RESULTS.md).
type budget struct{ spans, keys int }

var (
	pgBudget     = budget{spans: 32, keys: 64}
	sqliteBudget = budget{spans: 128, keys: 64}
)

// cellFineness stops the refinement once cells are this many times
// smaller than the query box on both axes: the index tests the exact box
// in the index entries, so reading more entries than needed costs little,
// while each interval costs the planner.
const cellFineness = 2

// cellSpans returns the key intervals, sorted and merged, that hold the
// key of every box meeting one of boxes (edges touching count): a superset,
// which the exact box test narrows. Single keys are intervals of one.
func cellSpans(b budget, boxes ...Box) []cellSpan {
	var out []cellSpan
	for _, q := range boxes {
		out = appendCellSpans(out, b, q)
	}
	slices.SortFunc(out, func(a, b cellSpan) int { return cmp.Compare(a.lo, b.lo) })
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && s.lo <= merged[n-1].hi+1 {
			merged[n-1].hi = max(merged[n-1].hi, s.hi)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// appendCellSpans walks the quadtree down from the root, level by level:
// a cell whose reach misses q is dropped with its descendants; a cell
// inside q, or any cell once the budgets are spent, is taken with all its
// descendants; otherwise its own key is taken and its children are
// visited. The root is never dropped, since boxes outside the frame are
// keyed to it.
func appendCellSpans(out []cellSpan, b budget, q Box) []cellSpan {
	if math.IsNaN(q[0]) || math.IsNaN(q[1]) || math.IsNaN(q[2]) || math.IsNaN(q[3]) {
		return out
	}
	keys := 0
	frontier := []cell{{}}
	for len(frontier) > 0 {
		l := frontier[0].level
		fine := cellkey.Width(l) <= (q[2]-q[0])/cellFineness && cellkey.Height(l) <= (q[3]-q[1])/cellFineness
		refine := l < cellkey.MaxLevel && !fine && 4*len(frontier) <= b.spans && keys+len(frontier) <= b.keys
		var next []cell
		for _, c := range frontier {
			if !refine || c.inside(q) {
				out = append(out, c.span())
				continue
			}
			out = append(out, cellSpan{c.id(), c.id()})
			keys++
			for q2 := range uint32(4) {
				ch := cell{c.level + 1, c.ix<<1 | q2&1, c.iy<<1 | q2>>1}
				if meets(ch.reach(), q) {
					next = append(next, ch)
				}
			}
		}
		frontier = next
	}
	return out
}
