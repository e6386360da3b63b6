// Package featureindex holds published layer versions in memory for the
// services that read them by location (point queries, vector tiles): an
// immutable, packed R-tree over the features of one version, with their
// geometries and attributes in compact arenas, and a cache of such
// indexes bounded in bytes. A published version never changes, so an
// index is built once, in one pass, and read by any number of requests at
// once without locks.
package featureindex

import (
	"math"
	"sort"
)

// nodeSize is the fan-out of the tree: each node holds up to 16 children.
const nodeSize = 16

// Index is a packed Hilbert R-tree over feature bounding boxes in
// longitude, latitude.
type Index struct {
	// boxes holds 4 floats (minx, miny, maxx, maxy) per entry from entry
	// boxFrom on: the items (leaves) first, in tree order, then each level
	// of nodes up to the root.
	boxes   []float64
	boxFrom int
	// pts holds x, y per item when every item is a point; boxes then
	// starts at the nodes (boxFrom is n). Half the bytes per leaf, which
	// searches read most.
	pts []float64
	// levels are the entry offsets where each level starts; the last
	// level is the root.
	levels []int
	n      int
	// fid, and the geometry and attribute arenas, by item (tree order).
	fid      []int64
	geomEnd  []uint32 // end offsets in geom; points store no WKB
	geom     []byte
	attrEnd  []uint32
	attrs    []byte
	isPoint  []bool
	geomless int
}

// Len is the number of items.
func (ix *Index) Len() int { return ix.n }

// Bytes estimates the memory the index holds.
func (ix *Index) Bytes() int64 {
	return int64(len(ix.boxes)*8 + len(ix.pts)*8 + len(ix.fid)*8 + len(ix.geomEnd)*4 + len(ix.geom) +
		len(ix.attrEnd)*4 + len(ix.attrs) + len(ix.isPoint))
}

// Bounds is the box of every item (the root's); zero when empty.
func (ix *Index) Bounds() (minx, miny, maxx, maxy float64) {
	if ix.n == 0 {
		return 0, 0, 0, 0
	}
	return ix.entryBox(ix.root())
}

// root is the entry of the root: the last.
func (ix *Index) root() int { return ix.boxFrom + len(ix.boxes)/4 - 1 }

// entryBox is the box of entry c, an item or a node.
func (ix *Index) entryBox(c int) (minx, miny, maxx, maxy float64) {
	if c < ix.n && ix.pts != nil {
		x, y := ix.pts[2*c], ix.pts[2*c+1]
		return x, y, x, y
	}
	b := ix.boxes[4*(c-ix.boxFrom) : 4*(c-ix.boxFrom)+4]
	return b[0], b[1], b[2], b[3]
}

// FID is the feature id of item i.
func (ix *Index) FID(i int) int64 { return ix.fid[i] }

// Box returns the bounding box of item i.
func (ix *Index) Box(i int) (minx, miny, maxx, maxy float64) { return ix.entryBox(i) }

// IsPoint reports whether item i is a single point, whose coordinates are
// its box's corner.
func (ix *Index) IsPoint(i int) bool { return ix.pts != nil || ix.isPoint[i] }

// WKB returns the geometry of item i as ISO WKB; nil for points (use Box).
func (ix *Index) WKB(i int) []byte { return span(ix.geom, ix.geomEnd, i) }

// Attrs returns the attributes JSON of item i (nil for none).
func (ix *Index) Attrs(i int) []byte { return span(ix.attrs, ix.attrEnd, i) }

// span returns item i's bytes of data, whose items end at ends; nil when
// empty.
func span(data []byte, ends []uint32, i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = ends[i-1]
	}
	if start == ends[i] {
		return nil
	}
	return data[start:ends[i]]
}

// Search calls fn with every item whose box intersects the query box, in
// no particular order, until fn returns false.
func (ix *Index) Search(minx, miny, maxx, maxy float64, fn func(i int) bool) {
	if ix.n == 0 {
		return
	}
	stack := make([]int, 0, 64)
	stack = append(stack, ix.root(), len(ix.levels)-1)
	for len(stack) > 0 {
		level := stack[len(stack)-1]
		node := stack[len(stack)-2]
		stack = stack[:len(stack)-2]
		// The children of node (at level) are a run of the level below.
		var first, end int
		if level == 0 {
			first, end = node, node+1
		} else {
			pos := node - ix.levels[level]
			first = ix.levels[level-1] + pos*nodeSize
			end = min(first+nodeSize, ix.levels[level])
		}
		if first < ix.n { // the children are items
			if !ix.searchItems(first, end, minx, miny, maxx, maxy, fn) {
				return
			}
			continue
		}
		for c := first; c < end; c++ {
			b := ix.boxes[4*(c-ix.boxFrom) : 4*(c-ix.boxFrom)+4]
			if b[2] < minx || b[3] < miny || b[0] > maxx || b[1] > maxy {
				continue
			}
			stack = append(stack, c, level-1)
		}
	}
}

// searchItems calls fn with the items first to end that intersect the
// query box; false when fn stopped the search.
func (ix *Index) searchItems(first, end int, minx, miny, maxx, maxy float64, fn func(i int) bool) bool {
	if ix.pts != nil {
		for c := first; c < end; c++ {
			x, y := ix.pts[2*c], ix.pts[2*c+1]
			if x < minx || y < miny || x > maxx || y > maxy {
				continue
			}
			if !fn(c) {
				return false
			}
		}
		return true
	}
	for c := first; c < end; c++ {
		b := ix.boxes[4*c : 4*c+4]
		if b[2] < minx || b[3] < miny || b[0] > maxx || b[1] > maxy {
			continue
		}
		if !fn(c) {
			return false
		}
	}
	return true
}

// Builder collects features for an Index.
type Builder struct {
	items   []item
	geom    []byte
	attrs   []byte
	skipped int
}

type item struct {
	box                [4]float64
	fid                int64
	geomStart, geomEnd uint32
	attrStart, attrEnd uint32
	point              bool
	hilbert            uint32
}

// Add adds a feature: its fid, its bounding box, its geometry as WKB (nil
// for a point, whose coordinates are the box corner) and its attributes
// JSON. Features without geometry are not indexed: point queries cannot
// reach them.
func (b *Builder) Add(fid int64, box [4]float64, point bool, wkb, attrs []byte) {
	it := item{box: box, fid: fid, point: point}
	it.geomStart = uint32(len(b.geom))
	if !point {
		b.geom = append(b.geom, wkb...)
	}
	it.geomEnd = uint32(len(b.geom))
	it.attrStart = uint32(len(b.attrs))
	b.attrs = append(b.attrs, attrs...)
	it.attrEnd = uint32(len(b.attrs))
	b.items = append(b.items, it)
}

// Skip counts a feature without geometry.
func (b *Builder) Skip() { b.skipped++ }

// Build sorts the items along a Hilbert curve and packs the tree.
func (b *Builder) Build() *Index {
	n := len(b.items)
	ix := &Index{n: n, geomless: b.skipped}
	if n == 0 {
		return ix
	}
	ext := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, it := range b.items {
		ext[0], ext[1] = math.Min(ext[0], it.box[0]), math.Min(ext[1], it.box[1])
		ext[2], ext[3] = math.Max(ext[2], it.box[2]), math.Max(ext[3], it.box[3])
	}
	w, h := ext[2]-ext[0], ext[3]-ext[1]
	const side = 1<<16 - 1
	for i := range b.items {
		it := &b.items[i]
		x, y := 0.0, 0.0
		if w > 0 {
			x = ((it.box[0]+it.box[2])/2 - ext[0]) / w * side
		}
		if h > 0 {
			y = ((it.box[1]+it.box[3])/2 - ext[1]) / h * side
		}
		it.hilbert = hilbert(uint32(x), uint32(y))
	}
	sort.Slice(b.items, func(i, j int) bool { return b.items[i].hilbert < b.items[j].hilbert })

	// Count the entries of every level.
	total, levels := n, []int{0}
	for count := n; count > 1; {
		count = (count + nodeSize - 1) / nodeSize
		levels = append(levels, total)
		total += count
	}
	if n == 1 {
		// A single item is its own root.
		levels = []int{0}
	}
	ix.levels = levels
	points := true
	for _, it := range b.items {
		points = points && it.point && it.box[0] == it.box[2] && it.box[1] == it.box[3]
	}
	if points {
		ix.boxFrom = n
		ix.pts = make([]float64, 2*n)
	} else {
		ix.isPoint = make([]bool, n)
	}
	ix.boxes = make([]float64, 4*(total-ix.boxFrom))
	ix.fid = make([]int64, n)
	ix.geomEnd = make([]uint32, n)
	ix.attrEnd = make([]uint32, n)
	ix.geom = make([]byte, 0, len(b.geom))
	ix.attrs = make([]byte, 0, len(b.attrs))
	for i, it := range b.items {
		if points {
			ix.pts[2*i], ix.pts[2*i+1] = it.box[0], it.box[1]
		} else {
			copy(ix.boxes[4*i:], it.box[:])
			ix.isPoint[i] = it.point
		}
		ix.fid[i] = it.fid
		ix.geom = append(ix.geom, b.geom[it.geomStart:it.geomEnd]...)
		ix.geomEnd[i] = uint32(len(ix.geom))
		ix.attrs = append(ix.attrs, b.attrs[it.attrStart:it.attrEnd]...)
		ix.attrEnd[i] = uint32(len(ix.attrs))
	}
	// Each node's box covers its run of children in the level below.
	for l := 1; l < len(levels); l++ {
		childStart, childEnd := levels[l-1], levels[l]
		for c, node := childStart, levels[l]; c < childEnd; c, node = c+nodeSize, node+1 {
			box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
			for k := c; k < min(c+nodeSize, childEnd); k++ {
				x0, y0, x1, y1 := ix.entryBox(k)
				box[0], box[1] = math.Min(box[0], x0), math.Min(box[1], y0)
				box[2], box[3] = math.Max(box[2], x1), math.Max(box[3], y1)
			}
			copy(ix.boxes[4*(node-ix.boxFrom):], box[:])
		}
	}
	b.items, b.geom, b.attrs = nil, nil, nil
	return ix
}

// hilbert returns the position of (x, y) along a Hilbert curve over a
// 65536 × 65536 grid.
func hilbert(x, y uint32) uint32 {
	var d uint32
	for s := uint32(1 << 15); s > 0; s >>= 1 {
		var rx, ry uint32
		if x&s > 0 {
			rx = 1
		}
		if y&s > 0 {
			ry = 1
		}
		d += s * s * ((3 * rx) ^ ry)
		// Rotate the quadrant.
		if ry == 0 {
			if rx == 1 {
				// Flipping every bit flips the low ones still to come.
				x, y = ^x, ^y
			}
			x, y = y, x
		}
	}
	return d
}
