package vectortiles

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Tile grid constants.
const (
	// Extent is the tile grid's size in units.
	Extent = 4096
	// Buffer is how far, in grid units, geometries reach beyond the tile.
	Buffer = 64
	// MaxZoom is the deepest zoom served.
	MaxZoom = 24
	// MaxFeatures is the most features one layer of a tile holds, at
	// zoom 14 and deeper; see FeatureLimit for the shallower zooms.
	MaxFeatures = 20000
	// FullZoom is the shallowest zoom whose tiles hold MaxFeatures.
	FullZoom = 14
	// LowZoom is the zoom below which the limit stops halving.
	LowZoom = 8
	// maxLat is Web Mercator's latitude limit.
	maxLat = 85.0511287798066
)

// FeatureLimit is the most features one layer of a tile at zoom z holds:
// MaxFeatures from zoom 14 down, halving with each zoom out to LowZoom
// (10,000 at zoom 13, 5,000 at 12, 312 at 8 and shallower). A tile of a
// shallow zoom covers a wide area at the same 256 pixels, so it keeps an
// even sample rather than every feature: tiles stay small (the 8,600
// points a zoom-8 tile of a million points over New Zealand meets would
// be 650 KiB, beyond the 500 KB vector tiles are kept under) and a map
// stays readable.
func FeatureLimit(z int) int {
	z = min(max(z, LowZoom), FullZoom)
	return max(featureLimit>>(FullZoom-z), 1)
}

// Tile addresses one XYZ tile.
type Tile struct{ Z, X, Y int }

// String is "z/x/y".
func (t Tile) String() string { return fmt.Sprintf("%d/%d/%d", t.Z, t.X, t.Y) }

// ParseTile reads z, x and y ("y" may end in .pbf or .mvt, which the
// caller strips), with a message for the caller when they are not a tile.
func ParseTile(z, x, y string) (Tile, error) {
	var t Tile
	var err error
	if t.Z, err = coordinate("z", z); err != nil {
		return t, err
	}
	if t.Z > MaxZoom {
		return t, fmt.Errorf("zoom %d is out of range: 0 to %d", t.Z, MaxZoom)
	}
	if t.X, err = coordinate("x", x); err != nil {
		return t, err
	}
	if t.Y, err = coordinate("y", y); err != nil {
		return t, err
	}
	n := 1 << t.Z
	if t.X >= n || t.Y >= n {
		return t, fmt.Errorf("tile %d/%d/%d is out of range: x and y go from 0 to %d at zoom %d", t.Z, t.X, t.Y, n-1, t.Z)
	}
	return t, nil
}

func coordinate(name, s string) (int, error) {
	if s == "" || len(s) > 9 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%s must be a non-negative integer, not %q", name, s)
	}
	return strconv.Atoi(s)
}

// mercatorX and mercatorY give a longitude and latitude's position on the
// whole world's grid at a zoom, in tile units (0 to 2^z).
func mercatorX(lon float64, n float64) float64 { return (lon + 180) / 360 * n }

func mercatorY(lat float64, n float64) float64 {
	lat = math.Max(-maxLat, math.Min(maxLat, lat))
	s := math.Sin(lat * math.Pi / 180)
	return (0.5 - math.Log((1+s)/(1-s))/(4*math.Pi)) * n
}

// lonOf and latOf invert mercatorX and mercatorY.
func lonOf(x, n float64) float64 { return x/n*360 - 180 }

func latOf(y, n float64) float64 {
	m := math.Pi * (1 - 2*y/n)
	return math.Atan(math.Sinh(m)) * 180 / math.Pi
}

// Envelope is the tile's box in EPSG:4326 grown by buffer grid units:
// [west, south, east, north]. At the poles' edge rows it reaches to ±90
// so that features beyond Web Mercator's limit are kept (and clamped).
func (t Tile) Envelope(buffer float64) [4]float64 {
	n := float64(int(1) << t.Z)
	b := buffer / Extent
	x0, x1 := float64(t.X)-b, float64(t.X+1)+b
	y0, y1 := float64(t.Y)-b, float64(t.Y+1)+b
	env := [4]float64{lonOf(x0, n), latOf(y1, n), lonOf(x1, n), latOf(y0, n)}
	if t.Y == 0 {
		env[3] = 90
	}
	if t.Y == int(n)-1 {
		env[1] = -90
	}
	return env
}

// project returns the function that maps a longitude, latitude to the
// tile's grid (float units, y down).
func (t Tile) project() func(lon, lat float64) (float64, float64) {
	n := float64(int(1)<<t.Z) * Extent
	ox, oy := float64(t.X)*Extent, float64(t.Y)*Extent
	return func(lon, lat float64) (float64, float64) {
		return mercatorX(lon, n) - ox, mercatorY(lat, n) - oy
	}
}
