package wfsserver

import (
	"strconv"

	"github.com/twpayne/go-geom"
)

// gmlWriter writes geometries as GML 3.2 or 3.1.1, their coordinates
// already in the response's CRS and axis order.
type gmlWriter struct {
	x       *xw
	gml32   bool
	srsName string
	buf     []byte
}

// geometry writes g with srsName; id names it (GML 3.2 requires gml:id
// on every geometry, and member geometries get id.1, id.2, ...).
func (w *gmlWriter) geometry(g geom.T, id string) {
	w.write(g, id, true)
}

func (w *gmlWriter) open(name, id string, top bool, dims int) {
	attrs := []string{}
	if w.gml32 {
		attrs = append(attrs, "gml:id", id)
	}
	if top {
		attrs = append(attrs, "srsName", w.srsName)
		if dims == 3 {
			attrs = append(attrs, "srsDimension", "3")
		}
	}
	w.x.open(name, attrs...)
}

func dimsOf(l geom.Layout) int {
	if l == geom.XYZ || l == geom.XYZM {
		return 3
	}
	return 2
}

func (w *gmlWriter) write(g geom.T, id string, top bool) {
	dims := dimsOf(g.Layout())
	switch g := g.(type) {
	case *geom.Point:
		w.open("gml:Point", id, top, dims)
		w.coords("gml:pos", g.FlatCoords(), g.Stride(), dims)
		w.x.close("gml:Point")
	case *geom.LineString:
		w.open("gml:LineString", id, top, dims)
		w.coords("gml:posList", g.FlatCoords(), g.Stride(), dims)
		w.x.close("gml:LineString")
	case *geom.Polygon:
		w.open("gml:Polygon", id, top, dims)
		w.rings(g, dims)
		w.x.close("gml:Polygon")
	case *geom.MultiPoint:
		w.open("gml:MultiPoint", id, top, dims)
		for i := 0; i < g.NumPoints(); i++ {
			w.x.open("gml:pointMember")
			w.write(g.Point(i), id+"."+strconv.Itoa(i+1), false)
			w.x.close("gml:pointMember")
		}
		w.x.close("gml:MultiPoint")
	case *geom.MultiLineString:
		w.open("gml:MultiCurve", id, top, dims)
		for i := 0; i < g.NumLineStrings(); i++ {
			w.x.open("gml:curveMember")
			w.write(g.LineString(i), id+"."+strconv.Itoa(i+1), false)
			w.x.close("gml:curveMember")
		}
		w.x.close("gml:MultiCurve")
	case *geom.MultiPolygon:
		w.open("gml:MultiSurface", id, top, dims)
		for i := 0; i < g.NumPolygons(); i++ {
			w.x.open("gml:surfaceMember")
			w.write(g.Polygon(i), id+"."+strconv.Itoa(i+1), false)
			w.x.close("gml:surfaceMember")
		}
		w.x.close("gml:MultiSurface")
	case *geom.GeometryCollection:
		w.open("gml:MultiGeometry", id, top, dims)
		for i, m := range g.Geoms() {
			w.x.open("gml:geometryMember")
			w.write(m, id+"."+strconv.Itoa(i+1), false)
			w.x.close("gml:geometryMember")
		}
		w.x.close("gml:MultiGeometry")
	}
}

func (w *gmlWriter) rings(p *geom.Polygon, dims int) {
	for i := 0; i < p.NumLinearRings(); i++ {
		el := "gml:interior"
		if i == 0 {
			el = "gml:exterior"
		}
		r := p.LinearRing(i)
		w.x.open(el)
		w.x.open("gml:LinearRing")
		w.coords("gml:posList", r.FlatCoords(), r.Stride(), dims)
		w.x.close("gml:LinearRing")
		w.x.close(el)
	}
}

// coords writes positions as space-separated numbers.
func (w *gmlWriter) coords(el string, flat []float64, stride, dims int) {
	b := w.buf[:0]
	for i := 0; i+dims <= len(flat); i += stride {
		for d := 0; d < dims; d++ {
			if len(b) > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendFloat(b, flat[i+d], 'f', -1, 64)
		}
	}
	w.buf = b
	w.x.raw("<" + el + ">")
	w.x.raw(string(b))
	w.x.raw("</" + el + ">")
}
