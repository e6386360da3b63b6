package tilearchive

import (
	"fmt"
	"math"
)

// maxLat is the latitude where Web Mercator's square world ends.
const maxLat = 85.05112877980659

// MaxZoomLimit is the deepest zoom an archive may hold.
const MaxZoomLimit = 24

// TileID is the PMTiles v3 tile ID of z/x/y: the tiles of all shallower
// zooms, plus the position of (x, y) on zoom z's Hilbert curve.
func TileID(z, x, y int) uint64 {
	acc := (uint64(1)<<(2*uint(z)) - 1) / 3
	ux, uy := uint64(x), uint64(y)
	var d uint64
	for s := uint64(1) << uint(z) >> 1; s > 0; s >>= 1 {
		var rx, ry uint64
		if ux&s != 0 {
			rx = 1
		}
		if uy&s != 0 {
			ry = 1
		}
		d += s * s * ((3 * rx) ^ ry)
		// Rotate the quadrant so the curve's next level is in order.
		if ry == 0 {
			if rx == 1 {
				ux = s - 1 - ux&(s-1)
				uy = s - 1 - uy&(s-1)
			}
			ux, uy = uy, ux
		}
	}
	return acc + d
}

// TileZXY is the tile of a PMTiles v3 tile ID, the inverse of TileID.
func TileZXY(id uint64) (z, x, y int) {
	var acc uint64
	for z = 0; z <= 31; z++ {
		n := uint64(1) << (2 * uint(z))
		if id < acc+n {
			break
		}
		acc += n
	}
	d := id - acc
	var ux, uy uint64
	for s := uint64(1); s < uint64(1)<<uint(z); s <<= 1 {
		rx := 1 & (d / 2)
		ry := 1 & (d ^ rx)
		if ry == 0 {
			if rx == 1 {
				ux = s - 1 - ux
				uy = s - 1 - uy
			}
			ux, uy = uy, ux
		}
		ux += s * rx
		uy += s * ry
		d /= 4
	}
	return z, int(ux), int(uy)
}

// span is the tiles of one zoom meeting the bounds: columns x0..x1 and
// rows y0..y1, inclusive.
type span struct{ x0, y0, x1, y1 int }

func (s span) count() int64 { return int64(s.x1-s.x0+1) * int64(s.y1-s.y0+1) }

func (s span) has(x, y int) bool { return x >= s.x0 && x <= s.x1 && y >= s.y0 && y <= s.y1 }

// spanOf returns the tiles of zoom z meeting box (west, south, east,
// north, already checked and clamped).
func spanOf(box [4]float64, z int) span {
	n := float64(int64(1) << uint(z))
	last := int(n) - 1
	col := func(lon float64, edge bool) int {
		v := (lon + 180) / 360 * n
		return clampInt(tileIndex(v, edge), 0, last)
	}
	row := func(lat float64, edge bool) int {
		r := lat * math.Pi / 180
		v := (1 - math.Log(math.Tan(r)+1/math.Cos(r))/math.Pi) / 2 * n
		return clampInt(tileIndex(v, edge), 0, last)
	}
	return span{x0: col(box[0], false), x1: col(box[2], true), y0: row(box[3], false), y1: row(box[1], true)}
}

// tileIndex is the tile holding grid coordinate v; a far edge (east,
// south) lying exactly on a tile boundary belongs to the tile before it.
func tileIndex(v float64, farEdge bool) int {
	f := math.Floor(v)
	if farEdge && f == v && f > 0 {
		f--
	}
	return int(f)
}

func clampInt(v, lo, hi int) int {
	return min(max(v, lo), hi)
}

// checkOptions validates o and returns its bounds, defaulted and
// clamped.
func checkOptions(o Options) ([4]float64, error) {
	if o.MinZoom < 0 || o.MaxZoom < o.MinZoom || o.MaxZoom > MaxZoomLimit {
		return [4]float64{}, fmt.Errorf("tilearchive: zoom range %d-%d: want 0 <= min <= max <= %d", o.MinZoom, o.MaxZoom, MaxZoomLimit)
	}
	switch o.Type {
	case TypeMVT, TypePNG, TypeJPG, TypeWebP:
	default:
		return [4]float64{}, fmt.Errorf("tilearchive: unknown tile type %q", o.Type)
	}
	b := o.Bounds
	if b == ([4]float64{}) {
		b = [4]float64{-180, -maxLat, 180, maxLat}
	}
	for _, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return b, fmt.Errorf("tilearchive: bounds %v are not numbers", o.Bounds)
		}
	}
	b[0], b[2] = math.Max(b[0], -180), math.Min(b[2], 180)
	b[1], b[3] = math.Max(b[1], -maxLat), math.Min(b[3], maxLat)
	if b[0] > b[2] || b[1] > b[3] {
		return b, fmt.Errorf("tilearchive: bounds %v: want west <= east and south <= north within the Web Mercator world", o.Bounds)
	}
	return b, nil
}

// Estimate is the number of tiles the bounds span over the zoom range:
// an upper bound of the tiles a walk visits (0 when o is invalid).
func Estimate(o Options) int64 {
	b, err := checkOptions(o)
	if err != nil {
		return 0
	}
	var n int64
	for z := o.MinZoom; z <= o.MaxZoom; z++ {
		c := spanOf(b, z).count()
		if n > math.MaxInt64-c {
			return math.MaxInt64
		}
		n += c
	}
	return n
}
