package vectortiles

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/simplify"
	"github.com/twpayne/go-geom"
)

// tileBound is the buffered tile in grid units.
var tileBound = orb.Bound{Min: orb.Point{-Buffer, -Buffer}, Max: orb.Point{Extent + Buffer, Extent + Buffer}}

// simplifier removes vertices within one grid unit of the line through
// their neighbours.
var simplifier = simplify.DouglasPeucker(1)

// toTile projects a geometry onto the tile's grid, clips it to the
// buffered tile, simplifies and snaps it; nil when nothing of it is left
// (outside the tile, or degenerate). Of a geometry collection, which MVT
// cannot hold, the parts of the highest dimension are kept, as PostGIS's
// ST_AsMVTGeom does.
func toTile(g geom.T, proj func(lon, lat float64) (float64, float64)) orb.Geometry {
	return fit(projected(g, proj))
}

// fit clips a geometry on the tile's grid to the buffered tile,
// simplifies and snaps it; nil when nothing of it is left.
func fit(out orb.Geometry) orb.Geometry {
	if out == nil {
		return nil
	}
	out = clip.Geometry(tileBound, out)
	if out == nil {
		return nil
	}
	if out.Dimensions() > 0 {
		if out = simplifier.Simplify(out); out == nil {
			return nil
		}
	}
	return snap(out)
}

// fitPoint is fit of a point at lon, lat without the interfaces and
// allocations of the general path: projected, kept when it lies within
// Web Mercator's latitudes and the buffered tile (edges included), and
// rounded to the grid.
func fitPoint(lon, lat float64, proj func(lon, lat float64) (float64, float64)) (orb.Point, bool) {
	if lat < -maxLat || lat > maxLat {
		return orb.Point{}, false
	}
	x, y := proj(lon, lat)
	if x < tileBound.Min[0] || x > tileBound.Max[0] || y < tileBound.Min[1] || y > tileBound.Max[1] {
		return orb.Point{}, false
	}
	return orb.Point{math.Round(x), math.Round(y)}, true
}

// projected is a geometry on the tile's grid, nil when it is empty.
func projected(g geom.T, proj func(lon, lat float64) (float64, float64)) orb.Geometry {
	var out orb.Geometry
	switch g := g.(type) {
	case *geom.GeometryCollection:
		return highestParts(g, proj)
	case *geom.Point:
		if g.Empty() || !onMap(g.FlatCoords()) {
			return nil
		}
		out = point(g.FlatCoords(), g.Stride(), proj)
	case *geom.MultiPoint:
		mp := make(orb.MultiPoint, 0, g.NumPoints())
		for i := range g.NumPoints() {
			if p := g.Point(i); !p.Empty() && onMap(p.FlatCoords()) {
				mp = append(mp, point(p.FlatCoords(), p.Stride(), proj))
			}
		}
		if len(mp) == 0 {
			return nil
		}
		out = mp
	case *geom.LineString:
		out = line(g.FlatCoords(), g.Stride(), proj)
	case *geom.MultiLineString:
		ml := make(orb.MultiLineString, 0, g.NumLineStrings())
		for i := range g.NumLineStrings() {
			ml = append(ml, line(g.LineString(i).FlatCoords(), g.Stride(), proj))
		}
		out = ml
	case *geom.Polygon:
		out = polygon(g, proj)
	case *geom.MultiPolygon:
		mp := make(orb.MultiPolygon, 0, g.NumPolygons())
		for i := range g.NumPolygons() {
			mp = append(mp, polygon(g.Polygon(i), proj))
		}
		out = mp
	default:
		return nil
	}
	return out
}

// highestParts projects the parts of a collection (nested ones included)
// of its highest dimension into one multi-geometry; nil when it has none.
func highestParts(c *geom.GeometryCollection, proj func(lon, lat float64) (float64, float64)) orb.Geometry {
	var pts orb.MultiPoint
	var lines orb.MultiLineString
	var polys orb.MultiPolygon
	for _, g := range c.Geoms() {
		switch p := projected(g, proj).(type) {
		case orb.Point:
			pts = append(pts, p)
		case orb.MultiPoint:
			pts = append(pts, p...)
		case orb.LineString:
			lines = append(lines, p)
		case orb.MultiLineString:
			lines = append(lines, p...)
		case orb.Polygon:
			polys = append(polys, p)
		case orb.MultiPolygon:
			polys = append(polys, p...)
		}
	}
	switch {
	case len(polys) > 0:
		return polys
	case len(lines) > 0:
		return lines
	case len(pts) > 0:
		return pts
	}
	return nil
}

// onMap reports whether a point lies within Web Mercator's latitudes:
// points beyond are left out (lines and polygons are cut at them, their
// vertices beyond drawn on the map's edge).
func onMap(c []float64) bool { return c[1] >= -maxLat && c[1] <= maxLat }

func point(c []float64, _ int, proj func(lon, lat float64) (float64, float64)) orb.Point {
	x, y := proj(c[0], c[1])
	return orb.Point{x, y}
}

func line(c []float64, stride int, proj func(lon, lat float64) (float64, float64)) orb.LineString {
	ls := make(orb.LineString, 0, len(c)/stride)
	for i := 0; i+1 < len(c); i += stride {
		x, y := proj(c[i], c[i+1])
		ls = append(ls, orb.Point{x, y})
	}
	return ls
}

func polygon(g *geom.Polygon, proj func(lon, lat float64) (float64, float64)) orb.Polygon {
	p := make(orb.Polygon, 0, g.NumLinearRings())
	for i := range g.NumLinearRings() {
		p = append(p, orb.Ring(line(g.LinearRing(i).FlatCoords(), g.Stride(), proj)))
	}
	return p
}

// snap rounds a clipped geometry to integer grid units, removes repeated
// vertices and what collapses, and orients polygon rings as MVT 2.1 wants
// (exterior rings of positive area in the y-down grid, holes negative).
func snap(g orb.Geometry) orb.Geometry {
	switch g := g.(type) {
	case orb.Point:
		return orb.Point{math.Round(g[0]), math.Round(g[1])}
	case orb.MultiPoint:
		for i, p := range g {
			g[i] = orb.Point{math.Round(p[0]), math.Round(p[1])}
		}
		if len(g) == 0 {
			return nil
		}
		return g
	case orb.LineString:
		if l := snapLine(g); l != nil {
			return l
		}
		return nil
	case orb.MultiLineString:
		out := g[:0]
		for _, l := range g {
			if l = snapLine(l); l != nil {
				out = append(out, l)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case orb.Polygon:
		if p := snapPolygon(g); p != nil {
			return p
		}
		return nil
	case orb.MultiPolygon:
		out := g[:0]
		for _, p := range g {
			if p = snapPolygon(p); p != nil {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return nil
}

// snapPoints rounds points in place, dropping repeats.
func snapPoints(ps []orb.Point) []orb.Point {
	out := ps[:0]
	for _, p := range ps {
		q := orb.Point{math.Round(p[0]), math.Round(p[1])}
		if len(out) > 0 && out[len(out)-1] == q {
			continue
		}
		out = append(out, q)
	}
	return out
}

// snapLine is nil when fewer than two distinct vertices remain.
func snapLine(l orb.LineString) orb.LineString {
	l = snapPoints(l)
	if len(l) < 2 {
		return nil
	}
	return l
}

// snapPolygon is nil when the exterior ring has no area left; holes of no
// area are dropped.
func snapPolygon(p orb.Polygon) orb.Polygon {
	out := p[:0]
	for i, r := range p {
		r = orb.Ring(snapPoints(r))
		if len(r) > 1 && r[0] == r[len(r)-1] {
			r = r[:len(r)-1]
		}
		a := area(r)
		if len(r) < 3 || a == 0 {
			if i == 0 {
				return nil
			}
			continue
		}
		if (i == 0) != (a > 0) {
			reverse(r)
		}
		out = append(out, append(r, r[0]))
	}
	return out
}

// area is the surveyor's formula on an open ring, in grid units (y down):
// positive for rings that are clockwise on screen.
func area(r orb.Ring) float64 {
	var s float64
	for i := range r {
		j := (i + 1) % len(r)
		s += r[i][0]*r[j][1] - r[j][0]*r[i][1]
	}
	return s / 2
}

func reverse(r orb.Ring) {
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
}
