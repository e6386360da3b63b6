package main

import (
	"fmt"
	"math"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/vectortiles"
)

// zooms are the zooms measured.
var zooms = []int{8, 12, 14}

// r2 returns point i of the R2 low-discrepancy sequence over the unit
// square: the tiles and boxes asked for spread evenly over the data.
func r2(i int) (float64, float64) {
	const g = 1.32471795724474602596 // the plastic number
	_, fx := math.Modf(0.5 + float64(i)/g)
	_, fy := math.Modf(0.5 + float64(i)/(g*g))
	return fx, fy
}

// tileOf is the XYZ tile holding (lon, lat) at zoom z.
func tileOf(lon, lat float64, z int) vectortiles.Tile {
	n := float64(int(1) << z)
	x := int((lon + 180) / 360 * n)
	s := math.Sin(lat * math.Pi / 180)
	y := int((0.5 - math.Log((1+s)/(1-s))/(4*math.Pi)) * n)
	return vectortiles.Tile{Z: z, X: x, Y: y}
}

// tileList is the fixed list of tiles of zoom z every peer is asked for:
// every tile over the data's extent when there are at most most, else
// most distinct tiles at evenly spread points of the extent.
func tileList(z, most int) []vectortiles.Tile {
	nw, se := tileOf(benchkit.MinLon, benchkit.MaxLat, z), tileOf(benchkit.MaxLon-1e-9, benchkit.MinLat, z)
	var out []vectortiles.Tile
	if (se.X-nw.X+1)*(se.Y-nw.Y+1) <= most {
		for y := nw.Y; y <= se.Y; y++ {
			for x := nw.X; x <= se.X; x++ {
				out = append(out, vectortiles.Tile{Z: z, X: x, Y: y})
			}
		}
		return out
	}
	seen := map[vectortiles.Tile]bool{}
	for i := 0; len(out) < most; i++ {
		fx, fy := r2(i)
		t := tileOf(benchkit.MinLon+fx*(benchkit.MaxLon-benchkit.MinLon), benchkit.MinLat+fy*(benchkit.MaxLat-benchkit.MinLat), z)
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// boxList is the fixed list of n bbox query values (west,south,east,north)
// of side degrees, spread evenly over the data's extent.
func boxList(n int, side float64) []string {
	out := make([]string, n)
	for i := range out {
		fx, fy := r2(i)
		w := benchkit.MinLon + fx*(benchkit.MaxLon-benchkit.MinLon-side)
		s := benchkit.MinLat + fy*(benchkit.MaxLat-benchkit.MinLat-side)
		out[i] = fmt.Sprintf("%.4f,%.4f,%.4f,%.4f", w, s, w+side, s+side)
	}
	return out
}
