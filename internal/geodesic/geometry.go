package geodesic

import (
	"math"

	"github.com/twpayne/go-geom"
)

// Distance returns the distance in metres from p to g as PostGIS's
// geography ST_Distance measures it: zero inside polygons, else the
// spheroid distance to the nearest point found on the sphere. Geometries
// are in longitude, latitude degrees; only their first two ordinates count.
func Distance(p Point, g geom.T) float64 {
	switch g := g.(type) {
	case *geom.Point:
		if g.Empty() {
			return math.Inf(1)
		}
		return SpheroidDistance(p, Point{g.X(), g.Y()})
	case *geom.MultiPoint:
		return pointsDistance(p, g.FlatCoords(), g.Stride())
	case *geom.LineString:
		return lineDistance(p, g.FlatCoords(), g.Stride())
	case *geom.MultiLineString:
		best := math.Inf(1)
		start := 0
		for _, end := range g.Ends() {
			best = math.Min(best, lineDistance(p, g.FlatCoords()[start:end], g.Stride()))
			start = end
		}
		return best
	case *geom.Polygon:
		return polygonDistance(p, g.FlatCoords(), g.Ends(), g.Stride())
	case *geom.MultiPolygon:
		best := math.Inf(1)
		start := 0
		for _, ends := range g.Endss() {
			if len(ends) == 0 {
				continue
			}
			flat := g.FlatCoords()[start:ends[len(ends)-1]]
			rel := make([]int, len(ends))
			for i, e := range ends {
				rel[i] = e - start
			}
			best = math.Min(best, polygonDistance(p, flat, rel, g.Stride()))
			start = ends[len(ends)-1]
		}
		return best
	case *geom.GeometryCollection:
		best := math.Inf(1)
		for _, c := range g.Geoms() {
			best = math.Min(best, Distance(p, c))
		}
		return best
	}
	return math.Inf(1)
}

func pointsDistance(p Point, flat []float64, stride int) float64 {
	best := math.Inf(1)
	for i := 0; i+1 < len(flat); i += stride {
		best = math.Min(best, SpheroidDistance(p, Point{flat[i], flat[i+1]}))
	}
	return best
}

// lineDistance is the distance to a line string: the spheroid distance to
// the nearest of its edges' nearest points.
func lineDistance(p Point, flat []float64, stride int) float64 {
	n := len(flat) / stride
	if n == 1 {
		return SpheroidDistance(p, Point{flat[0], flat[1]})
	}
	best := math.Inf(1)
	var nearest Point
	for i := 0; i+1 < n; i++ {
		a := Point{flat[i*stride], flat[i*stride+1]}
		b := Point{flat[(i+1)*stride], flat[(i+1)*stride+1]}
		q := NearestOnEdge(p, a, b)
		// Compare candidates on the sphere (cheap), measure the winner on
		// the spheroid.
		if d := SphereDistance(p, q); d < best {
			best, nearest = d, q
		}
	}
	if math.IsInf(best, 1) {
		return best
	}
	return SpheroidDistance(p, nearest)
}

// polygonDistance is zero when p is inside the polygon (in its outer ring
// and out of its holes), else the distance to its nearest ring.
func polygonDistance(p Point, flat []float64, ends []int, stride int) float64 {
	if len(ends) == 0 {
		return math.Inf(1)
	}
	inside := ringContains(flat[:ends[0]], stride, p)
	for i := 1; inside && i < len(ends); i++ {
		if ringContains(flat[ends[i-1]:ends[i]], stride, p) {
			inside = false
		}
	}
	if inside {
		return 0
	}
	best := math.Inf(1)
	start := 0
	for _, end := range ends {
		best = math.Min(best, lineDistance(p, flat[start:end], stride))
		start = end
	}
	return best
}

// ringContains reports whether p is inside a closed ring, by the even-odd
// rule in longitude, latitude. Points on the boundary may go either way;
// their distance is zero or within rounding of it.
func ringContains(flat []float64, stride int, p Point) bool {
	in := false
	n := len(flat) / stride
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		xi, yi := flat[i*stride], flat[i*stride+1]
		xj, yj := flat[j*stride], flat[j*stride+1]
		if (yi > p.Lat) != (yj > p.Lat) && p.Lon < (xj-xi)*(p.Lat-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}
