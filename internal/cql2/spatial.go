package cql2

import "github.com/twpayne/go-geom"

// parts is a geometry taken apart for intersection tests.
type parts struct {
	points   [][2]float64
	segments [][4]float64
	polygons []*geom.Polygon
	// vertices are one position of every component: a point, a line's
	// first vertex, a polygon's first vertex.
	vertices [][2]float64
}

func decompose(g geom.T, p *parts) {
	switch g := g.(type) {
	case *geom.Point:
		if !g.Empty() {
			xy := [2]float64{g.X(), g.Y()}
			p.points = append(p.points, xy)
			p.vertices = append(p.vertices, xy)
		}
	case *geom.MultiPoint:
		for i := 0; i < g.NumPoints(); i++ {
			decompose(g.Point(i), p)
		}
	case *geom.LineString:
		p.path(g.FlatCoords(), g.Stride())
	case *geom.MultiLineString:
		for i := 0; i < g.NumLineStrings(); i++ {
			decompose(g.LineString(i), p)
		}
	case *geom.Polygon:
		if g.Empty() {
			return
		}
		p.polygons = append(p.polygons, g)
		for i := 0; i < g.NumLinearRings(); i++ {
			r := g.LinearRing(i)
			p.path(r.FlatCoords(), r.Stride())
		}
	case *geom.MultiPolygon:
		for i := 0; i < g.NumPolygons(); i++ {
			decompose(g.Polygon(i), p)
		}
	case *geom.GeometryCollection:
		for _, m := range g.Geoms() {
			decompose(m, p)
		}
	}
}

func (p *parts) path(flat []float64, stride int) {
	n := len(flat) / stride
	if n == 0 {
		return
	}
	p.vertices = append(p.vertices, [2]float64{flat[0], flat[1]})
	if n == 1 {
		p.points = append(p.points, [2]float64{flat[0], flat[1]})
	}
	for i := 0; i+1 < n; i++ {
		p.segments = append(p.segments, [4]float64{flat[i*stride], flat[i*stride+1], flat[(i+1)*stride], flat[(i+1)*stride+1]})
	}
}

// Intersects reports whether two geometries share a point: boundaries
// that cross or touch, a point on the other's boundary, or a component
// inside the other's polygon.
func Intersects(a, b geom.T) bool {
	var pa, pb parts
	decompose(a, &pa)
	decompose(b, &pb)
	for _, s := range pa.segments {
		for _, t := range pb.segments {
			if segmentsMeet(s, t) {
				return true
			}
		}
	}
	if pointsTouch(pa.points, pb) || pointsTouch(pb.points, pa) {
		return true
	}
	return insideAny(pa.vertices, pb.polygons) || insideAny(pb.vertices, pa.polygons)
}

// pointsTouch: a point of one lies on a point or segment of the other.
func pointsTouch(pts [][2]float64, o parts) bool {
	for _, p := range pts {
		for _, q := range o.points {
			if p == q {
				return true
			}
		}
		for _, s := range o.segments {
			if orient(s[0], s[1], s[2], s[3], p[0], p[1]) == 0 && onSegment(s, p[0], p[1]) {
				return true
			}
		}
	}
	return false
}

func insideAny(vs [][2]float64, polys []*geom.Polygon) bool {
	for _, v := range vs {
		for _, poly := range polys {
			if inPolygon(poly, v[0], v[1]) {
				return true
			}
		}
	}
	return false
}

// inPolygon: inside the outer ring and outside every hole (even-odd).
func inPolygon(p *geom.Polygon, x, y float64) bool {
	if !inRing(p.LinearRing(0), x, y) {
		return false
	}
	for i := 1; i < p.NumLinearRings(); i++ {
		if inRing(p.LinearRing(i), x, y) {
			return false
		}
	}
	return true
}

func inRing(r *geom.LinearRing, x, y float64) bool {
	flat, stride := r.FlatCoords(), r.Stride()
	n := len(flat) / stride
	in := false
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		xi, yi := flat[i*stride], flat[i*stride+1]
		xj, yj := flat[j*stride], flat[j*stride+1]
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

// orient is the sign of the turn a → b → c.
func orient(ax, ay, bx, by, cx, cy float64) int {
	v := (bx-ax)*(cy-ay) - (by-ay)*(cx-ax)
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// onSegment reports whether (x, y), collinear with s, lies within it.
func onSegment(s [4]float64, x, y float64) bool {
	return x >= min(s[0], s[2]) && x <= max(s[0], s[2]) && y >= min(s[1], s[3]) && y <= max(s[1], s[3])
}

// segmentsMeet reports whether two segments share a point.
func segmentsMeet(s, t [4]float64) bool {
	o1 := orient(s[0], s[1], s[2], s[3], t[0], t[1])
	o2 := orient(s[0], s[1], s[2], s[3], t[2], t[3])
	o3 := orient(t[0], t[1], t[2], t[3], s[0], s[1])
	o4 := orient(t[0], t[1], t[2], t[3], s[2], s[3])
	if o1 != o2 && o3 != o4 {
		return true
	}
	return o1 == 0 && onSegment(s, t[0], t[1]) || o2 == 0 && onSegment(s, t[2], t[3]) ||
		o3 == 0 && onSegment(t, s[0], s[1]) || o4 == 0 && onSegment(t, s[2], s[3])
}
