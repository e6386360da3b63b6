package featurerows

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// The PostgreSQL store indexes feature boxes by a cell key in a B-tree on
// (version_id, cell) rather than by a GiST of the boxes: a B-tree entry
// costs the import a fraction of a GiST insert (bench/import/RESULTS.md),
// and the planner keeps statistics for it.
//
// The cells form a quadtree over longitude and latitude ([-180, 180] ×
// [-90, 90]) down to cellMaxLevel. A box is keyed by its size and its
// lower-left corner (extended quadtree cells, as in XZ-ordering): its
// level is the finest whose cells are at least as wide and as tall as the
// box, and its cell is the one of that level holding (minx, miny), so the
// box lies within the cell grown by its own size to the right and
// upwards. A box's level follows from its size alone, so small boxes on a
// coarse cell's edge stay small in the index. Boxes outside the frame
// (and NaN) take the root cell, which every lookup reads.
//
// Keys number the cells as S2 does: the cell's Morton code (two bits per
// level) followed by a 1 bit and zeros, so a cell's descendants are the
// keys of one interval around its own key, and its own key lies between
// its children's intervals.
const cellMaxLevel = 30

// cellSlack widens every cell in lookups (degrees), so that rounding when
// a key was computed cannot lose a box lying on a cell's edge.
const cellSlack = 1e-9

// cellWidth and cellHeight are the size in degrees of a cell at level l.
func cellWidth(l int) float64  { return math.Ldexp(360, -l) }
func cellHeight(l int) float64 { return math.Ldexp(180, -l) }

// cellKey returns the key of box b (minx, miny, maxx, maxy).
func cellKey(b Box) int64 {
	if !(b[0] >= -180 && b[2] <= 180 && b[1] >= -90 && b[3] <= 90 && b[0] <= b[2] && b[1] <= b[3]) {
		return cellID(0, 0, 0)
	}
	w, h := b[2]-b[0], b[3]-b[1]
	l := cellMaxLevel
	for l > 0 && (w > cellWidth(l) || h > cellHeight(l)) {
		l--
	}
	return cellID(l, gridIndex(b[0]+180, cellWidth(l), l), gridIndex(b[1]+90, cellHeight(l), l))
}

// gridIndex is the column (or row) at level l holding offset v from the
// frame's edge, for cells of size size.
func gridIndex(v, size float64, l int) uint32 {
	i := math.Floor(v / size)
	if i < 0 {
		return 0
	}
	if n := math.Ldexp(1, l) - 1; i > n {
		return uint32(n)
	}
	return uint32(i)
}

// cellID is the key of the cell of level l at column ix, row iy.
func cellID(l int, ix, iy uint32) int64 {
	m := spread(ix) | spread(iy)<<1
	return int64((m<<1 | 1) << (2 * (cellMaxLevel - l)))
}

// spread moves the low 32 bits of v to the even bit positions.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// cellSpan is an interval of keys, both ends included.
type cellSpan struct{ lo, hi int64 }

// cell is one node of the quadtree walked by cellSpans.
type cell struct {
	level  int
	ix, iy uint32
}

func (c cell) id() int64 { return cellID(c.level, c.ix, c.iy) }

// span is c's key and its descendants' keys.
func (c cell) span() cellSpan {
	id := c.id()
	lsb := int64(1) << (2 * (cellMaxLevel - c.level))
	return cellSpan{id - lsb + 1, id + lsb - 1}
}

// reach is the region holding every box keyed to c or to a descendant of
// c: the cell grown by its own size to the right and upwards, plus slack.
func (c cell) reach() Box {
	w, h := cellWidth(c.level), cellHeight(c.level)
	x, y := float64(c.ix)*w-180, float64(c.iy)*h-90
	return Box{x - cellSlack, y - cellSlack, x + 2*w + cellSlack, y + 2*h + cellSlack}
}

// inside reports whether c itself lies within q.
func (c cell) inside(q Box) bool {
	w, h := cellWidth(c.level), cellHeight(c.level)
	x, y := float64(c.ix)*w-180, float64(c.iy)*h-90
	return x >= q[0] && x+w <= q[2] && y >= q[1] && y+h <= q[3]
}

func meets(a, b Box) bool { return a[0] <= b[2] && a[2] >= b[0] && a[1] <= b[3] && a[3] >= b[1] }

// Budgets of a lookup: the quadtree is refined while the cells to refine
// have at most spanBudget children and fewer than keyBudget single keys
// have been taken on the way down. Coarser cells read more candidate rows;
// more spans make a longer statement.
const (
	spanBudget = 32
	keyBudget  = 64
)

// cellFineness stops the refinement once cells are this many times
// smaller than the query box on both axes: the index tests the exact box
// in the index entries, so reading more entries than needed costs little,
// while each interval costs the planner.
const cellFineness = 2

// cellSpans returns the key intervals, sorted and merged, that hold the
// key of every box meeting one of boxes (edges touching count): a superset,
// which the exact box test narrows. Single keys are intervals of one.
func cellSpans(boxes ...Box) []cellSpan {
	var out []cellSpan
	for _, q := range boxes {
		out = appendCellSpans(out, q)
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
func appendCellSpans(out []cellSpan, q Box) []cellSpan {
	if math.IsNaN(q[0]) || math.IsNaN(q[1]) || math.IsNaN(q[2]) || math.IsNaN(q[3]) {
		return out
	}
	keys := 0
	frontier := []cell{{}}
	for len(frontier) > 0 {
		l := frontier[0].level
		fine := cellWidth(l) <= (q[2]-q[0])/cellFineness && cellHeight(l) <= (q[3]-q[1])/cellFineness
		refine := l < cellMaxLevel && !fine && 4*len(frontier) <= spanBudget && keys+len(frontier) <= keyBudget
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

// cellLevel is the level of key k (for tests and diagnostics).
func cellLevel(k int64) int {
	return cellMaxLevel - bits.TrailingZeros64(uint64(k))/2
}
