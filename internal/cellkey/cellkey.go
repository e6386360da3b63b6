// Package cellkey keys a feature's bounding box by a quadtree cell, the key
// both stores index feature boxes by: a B-tree on (version_id, cell, ...)
// costs an import a fraction of what a GiST or an R*Tree does
// (bench/import/RESULTS.md), and ranges of it answer box lookups
// (internal/featurerows turns a query box into key intervals).
//
// The cells form a quadtree over longitude and latitude ([-180, 180] ×
// [-90, 90]) down to MaxLevel. A box is keyed by its size and its
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
//
// The same function runs in the databases: the PostgreSQL migration
// defines features_cell_key in PL/pgSQL, and internal/store registers Key
// under that name on every SQLite connection; triggers there key the rows
// written without one.
package cellkey

import (
	"math"
	"math/bits"
)

// MaxLevel is the finest level of the quadtree.
const MaxLevel = 30

// Width and Height are the size in degrees of a cell at level l.
func Width(l int) float64  { return math.Ldexp(360, -l) }
func Height(l int) float64 { return math.Ldexp(180, -l) }

// Key returns the key of the box minx, miny, maxx, maxy.
func Key(minx, miny, maxx, maxy float64) int64 {
	if !(minx >= -180 && maxx <= 180 && miny >= -90 && maxy <= 90 && minx <= maxx && miny <= maxy) {
		return ID(0, 0, 0)
	}
	w, h := maxx-minx, maxy-miny
	l := MaxLevel
	for l > 0 && (w > Width(l) || h > Height(l)) {
		l--
	}
	return ID(l, gridIndex(minx+180, Width(l), l), gridIndex(miny+90, Height(l), l))
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

// ID is the key of the cell of level l at column ix, row iy.
func ID(l int, ix, iy uint32) int64 {
	m := spread(ix) | spread(iy)<<1
	return int64((m<<1 | 1) << (2 * (MaxLevel - l)))
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

// Level is the level of key k.
func Level(k int64) int {
	return MaxLevel - bits.TrailingZeros64(uint64(k))/2
}
