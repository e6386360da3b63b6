package wfsserver

import (
	"encoding/xml"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/featurerows"
	of "github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/relate"
)

// maxFilterBytes bounds the FILTER parameter.
const maxFilterBytes = 64 << 10

// node is an element of a filter document, read without regard to
// namespaces: FES 2.0 and OGC Filter 1.1 share their element names.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []node     `xml:",any"`
	Text    string     `xml:",chardata"`
}

func (n *node) attr(local string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func (n *node) name() string { return n.XMLName.Local }

// parsedFilter is a filter as the features query needs it: an expression
// or a list of resource ids (which FES does not mix).
type parsedFilter struct {
	expr cql2.Expr
	rids []string
}

// filterParser reads one filter for one feature type.
type filterParser struct {
	t   *featureType
	def SRS // the CRS of geometries without srsName
}

// parseFilter reads an FES 2.0 or Filter 1.1 document.
func parseFilter(s string, t *featureType, def SRS) (parsedFilter, error) {
	if len(s) > maxFilterBytes {
		return parsedFilter{}, invalid("filter", "filter is longer than %d bytes", maxFilterBytes)
	}
	var root node
	if err := xml.Unmarshal([]byte(s), &root); err != nil {
		return parsedFilter{}, invalid("filter", "filter is not well-formed XML: %v", err)
	}
	if root.name() != "Filter" {
		return parsedFilter{}, invalid("filter", "filter must be a Filter element, not %s", clip(root.name()))
	}
	p := filterParser{t: t, def: def}
	var out parsedFilter
	for i := range root.Nodes {
		n := &root.Nodes[i]
		switch n.name() {
		case "ResourceId", "FeatureId", "GmlObjectId":
			id := n.attr("rid")
			if id == "" {
				id = n.attr("fid")
			}
			if id == "" {
				id = n.attr("id")
			}
			out.rids = append(out.rids, id)
			continue
		}
		if out.expr != nil {
			return out, invalid("filter", "a Filter holds one operator (combine several with And or Or)")
		}
		e, err := p.expr(n)
		if err != nil {
			return out, err
		}
		out.expr = e
	}
	if out.expr != nil && out.rids != nil {
		return out, invalid("filter", "resource ids cannot be combined with other operators")
	}
	if out.expr == nil && out.rids == nil {
		return out, invalid("filter", "the Filter is empty")
	}
	return out, nil
}

var compareOps = map[string]string{"PropertyIsEqualTo": "=", "PropertyIsNotEqualTo": "<>", "PropertyIsLessThan": "<",
	"PropertyIsGreaterThan": ">", "PropertyIsLessThanOrEqualTo": "<=", "PropertyIsGreaterThanOrEqualTo": ">="}

func (p *filterParser) expr(n *node) (cql2.Expr, error) {
	switch name := n.name(); name {
	case "And", "Or":
		if len(n.Nodes) < 2 {
			return nil, invalid("filter", "%s needs two operands or more", name)
		}
		l := cql2.Logical{Op: strings.ToLower(name)}
		for i := range n.Nodes {
			e, err := p.expr(&n.Nodes[i])
			if err != nil {
				return nil, err
			}
			l.Args = append(l.Args, e)
		}
		return l, nil
	case "Not":
		if len(n.Nodes) != 1 {
			return nil, invalid("filter", "Not takes one operand")
		}
		e, err := p.expr(&n.Nodes[0])
		if err != nil {
			return nil, err
		}
		return cql2.Not{Arg: e}, nil
	case "PropertyIsEqualTo", "PropertyIsNotEqualTo", "PropertyIsLessThan", "PropertyIsGreaterThan",
		"PropertyIsLessThanOrEqualTo", "PropertyIsGreaterThanOrEqualTo":
		if len(n.Nodes) != 2 {
			return nil, invalid("filter", "%s takes two operands", name)
		}
		a, b := &n.Nodes[0], &n.Nodes[1]
		op := compareOps[name]
		if a.name() == "Literal" {
			a, b = b, a
			op = map[string]string{"<": ">", ">": "<", "<=": ">=", ">=": "<="}[op]
			if op == "" {
				op = compareOps[name]
			}
		}
		prop, f, err := p.property(a)
		if err != nil {
			return nil, err
		}
		lit, err := p.literal(b, f)
		if err != nil {
			return nil, err
		}
		var left cql2.Expr = prop
		if ignoreCase(n) {
			left, lit = cql2.CaseI{Arg: prop}, cql2.CaseI{Arg: lit}
		}
		return cql2.Compare{Op: op, Left: left, Right: lit}, nil
	case "PropertyIsLike":
		if len(n.Nodes) != 2 {
			return nil, invalid("filter", "PropertyIsLike takes a property and a pattern")
		}
		prop, _, err := p.property(&n.Nodes[0])
		if err != nil {
			return nil, err
		}
		esc := n.attr("escapeChar")
		if esc == "" {
			esc = n.attr("escape")
		}
		pat := likePattern(n.Nodes[1].Text, n.attr("wildCard"), n.attr("singleChar"), esc)
		if ignoreCase(n) {
			return cql2.Like{Arg: cql2.CaseI{Arg: prop}, Pattern: cql2.CaseI{Arg: cql2.Literal{Value: pat}}}, nil
		}
		return cql2.Like{Arg: prop, Pattern: cql2.Literal{Value: pat}}, nil
	case "PropertyIsNull", "PropertyIsNil":
		if len(n.Nodes) != 1 {
			return nil, invalid("filter", "%s takes one property", name)
		}
		prop, _, err := p.property(&n.Nodes[0])
		if err != nil {
			return nil, err
		}
		return cql2.IsNull{Arg: prop}, nil
	case "PropertyIsBetween":
		var (
			prop   cql2.Expr
			f      fieldType
			lo, hi cql2.Expr
			err    error
		)
		for i := range n.Nodes {
			c := &n.Nodes[i]
			switch c.name() {
			case "LowerBoundary", "UpperBoundary":
				if len(c.Nodes) != 1 {
					return nil, invalid("filter", "%s holds one Literal", c.name())
				}
				lit, err := p.literal(&c.Nodes[0], f)
				if err != nil {
					return nil, err
				}
				if c.name() == "LowerBoundary" {
					lo = lit
				} else {
					hi = lit
				}
			default:
				if prop, f, err = p.property(c); err != nil {
					return nil, err
				}
			}
		}
		if prop == nil || lo == nil || hi == nil {
			return nil, invalid("filter", "PropertyIsBetween needs a property, a LowerBoundary and an UpperBoundary")
		}
		return cql2.Between{Arg: prop, Low: lo, High: hi}, nil
	case "DWithin", "Beyond":
		return p.distance(n)
	default:
		if slices.Contains(servedSpatialOps(), name) {
			return p.spatial(n)
		}
		return nil, invalid("filter", "unknown or unsupported filter operator %q", clip(name))
	}
}

// ignoreCase reports matchCase="false" on a binary comparison or LIKE
// (FES 2.0 7.7.3.2,
// Filter 1.1 11.2: "matchCase … indicates whether string comparisons
// are case sensitive"; the default is true).
func ignoreCase(n *node) bool {
	return strings.EqualFold(strings.TrimSpace(n.attr("matchCase")), "false")
}

// spatialPredicates are the spatial operators served, by FES name: the
// CQL2 predicate each is (BBOX is Intersects with an envelope; Disjoint
// the negation of Intersects).
var spatialPredicates = map[string]string{"BBOX": "s_intersects", "Intersects": "s_intersects", "Disjoint": "s_disjoint",
	"Equals": "s_equals", "Touches": "s_touches", "Within": "s_within", "Overlaps": "s_overlaps", "Crosses": "s_crosses",
	"Contains": "s_contains"}

// spatialOps are the spatial operators, in the capabilities' order: the
// first three and the last two are the project's own, the others GEOS's.
var spatialOps = []string{"BBOX", "Intersects", "Disjoint", "Equals", "Touches", "Within", "Overlaps", "Crosses", "Contains",
	"DWithin", "Beyond"}

// servedSpatialOps are the spatial operators served: all of spatialOps,
// or without GEOS in GDAL only those the project's own code answers.
func servedSpatialOps() []string {
	if relate.Available() {
		return spatialOps
	}
	return append(spatialOps[:3:3], "DWithin", "Beyond")
}

// metresPer are the distance units DWithin and Beyond take (uom in FES
// 2.0, units in Filter 1.1), in metres: symbols, names and EPSG's and
// OGC's URIs. Angles (degrees) are refused: a degree of longitude has no
// one length.
var metresPer = map[string]float64{
	"m": 1, "metre": 1, "meter": 1, "metres": 1, "meters": 1,
	"urn:ogc:def:uom:epsg::9001": 1, "http://www.opengis.net/def/uom/epsg/0/9001": 1,
	"http://www.opengis.net/def/uom/ogc/1.0/metre": 1,
	"km": 1000, "kilometre": 1000, "kilometer": 1000, "urn:ogc:def:uom:epsg::9036": 1000,
	"http://www.opengis.net/def/uom/epsg/0/9036": 1000,
	"ft": 0.3048, "foot": 0.3048, "feet": 0.3048, "urn:ogc:def:uom:epsg::9002": 0.3048,
	"http://www.opengis.net/def/uom/epsg/0/9002": 0.3048,
	"mi": 1609.344, "mile": 1609.344, "miles": 1609.344, "urn:ogc:def:uom:epsg::9093": 1609.344,
	"http://www.opengis.net/def/uom/epsg/0/9093": 1609.344,
	"nmi": 1852, "urn:ogc:def:uom:epsg::9030": 1852, "http://www.opengis.net/def/uom/epsg/0/9030": 1852,
}

// distance reads DWithin or Beyond (FES 2.0 7.8.3.7, Filter 1.1 11.2.3):
// the type's geometry, a literal geometry and a Distance with its unit.
// One of the two must be a point: the literal, or the type's features.
func (p *filterParser) distance(n *node) (cql2.Expr, error) {
	metres := -1.0
	g, err := p.operands(n, "measures from", func(c *node) (bool, error) {
		if c.name() != "Distance" {
			return false, nil
		}
		unit := c.attr("uom")
		if unit == "" {
			unit = c.attr("units")
		}
		per, ok := metresPer[strings.ToLower(strings.TrimSpace(unit))]
		if !ok {
			return true, invalid("filter", "%s: the distance's unit (uom) must be a length such as m, km, ft or mi, or its EPSG URI, not %q", n.name(), clip(unit))
		}
		d, err := strconv.ParseFloat(strings.TrimSpace(c.Text), 64)
		if err != nil || d < 0 || math.IsInf(d, 0) || math.IsNaN(d) {
			return true, invalid("filter", "%s: the distance must be a number of at least 0, not %q", n.name(), clip(strings.TrimSpace(c.Text)))
		}
		metres = d * per
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if metres < 0 {
		return nil, invalid("filter", "%s needs a geometry and a Distance", n.name())
	}
	if _, point := g.(*geom.Point); !point && !strings.EqualFold(p.t.c.GeometryType, "point") {
		return nil, invalid("filter", "%s measures from a point: give a gml:Point (the features of %s are not points)", n.name(), p.t.name)
	}
	op := "s_dwithin"
	if n.name() == "Beyond" {
		op = "s_beyond"
	}
	return cql2.Distance{Op: op, A: cql2.Property{Name: "geometry"}, B: cql2.Literal{Value: g}, Metres: metres}, nil
}

// spatial reads a spatial operator (spatialPredicates) of the type's
// geometry and a literal geometry: the property may be left out (of BBOX
// in particular).
func (p *filterParser) spatial(n *node) (cql2.Expr, error) {
	g, err := p.operands(n, "compares", nil)
	if err != nil {
		return nil, err
	}
	op := spatialPredicates[n.name()]
	if op == "s_disjoint" {
		// Disjoint is not Intersects: the same exact test either way.
		op = "s_intersects"
		return cql2.Not{Arg: cql2.Spatial{Op: op, A: cql2.Property{Name: "geometry"}, B: cql2.Literal{Value: g}}}, nil
	}
	return cql2.Spatial{Op: op, A: cql2.Property{Name: "geometry"}, B: cql2.Literal{Value: g}}, nil
}

// operands reads a spatial operator's children: the type's geometry
// (which may be left out) and a literal geometry, which it returns; other,
// when set, reads the operator's other children and reports whether it
// took one.
func (p *filterParser) operands(n *node, verb string, other func(c *node) (bool, error)) (geom.T, error) {
	if p.t.c.Table {
		return nil, invalid("filter", "%s has no geometry for a spatial filter", p.t.name)
	}
	var g geom.T
	for i := range n.Nodes {
		c := &n.Nodes[i]
		if other != nil {
			if took, err := other(c); err != nil {
				return nil, err
			} else if took {
				continue
			}
		}
		switch c.name() {
		case "ValueReference", "PropertyName":
			if _, f, err := p.property(c); err != nil {
				return nil, err
			} else if f != "geometry" {
				return nil, invalid("filter", "%s %s the geometry: %q is not the geometry of %s", n.name(), verb, clip(strings.TrimSpace(c.Text)), p.t.name)
			}
		default:
			var err error
			if g, err = p.geometry(c); err != nil {
				return nil, err
			}
		}
	}
	if g == nil {
		return nil, invalid("filter", "%s needs a geometry", n.name())
	}
	return g, nil
}

// property reads a ValueReference or PropertyName: a field of the type
// (an XML name, with or without a prefix) or its geometry.
func (p *filterParser) property(n *node) (cql2.Property, fieldType, error) {
	if n.name() != "ValueReference" && n.name() != "PropertyName" {
		return cql2.Property{}, "", invalid("filter", "expected a ValueReference, found %s", clip(n.name()))
	}
	ref := strings.TrimSpace(n.Text)
	ref = strings.TrimPrefix(ref, p.t.name+"/")
	if _, local, ok := strings.Cut(ref, ":"); ok {
		ref = local
	}
	if f, ok := p.t.byElement[ref]; ok {
		return cql2.Property{Name: f.Name}, fieldType(f.Type), nil
	}
	if !p.t.c.Table && (ref == p.t.geomElement || p.t.c.IsGeometry(ref)) {
		return cql2.Property{Name: "geometry"}, "geometry", nil
	}
	return cql2.Property{}, "", invalid("filter", "%q is not a property of %s", clip(ref), p.t.name)
}

// fieldType is a stored field's type: string, integer, double, boolean,
// date, datetime, time (or geometry).
type fieldType string

// localDateTime is an xsd:dateTime without a zone, its fraction of a
// second optional.
const localDateTime = "2006-01-02T15:04:05.999999999"

// literal reads a Literal as a value of the property's type.
func (p *filterParser) literal(n *node, f fieldType) (cql2.Expr, error) {
	if n.name() != "Literal" {
		return nil, invalid("filter", "expected a Literal, found %s", clip(n.name()))
	}
	s := strings.TrimSpace(n.Text)
	switch f {
	case "integer", "double":
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, invalid("filter", "%q is not a number", clip(s))
		}
		return cql2.Literal{Value: v}, nil
	case "boolean":
		v, err := strconv.ParseBool(s)
		if err != nil {
			return nil, invalid("filter", "%q is not true or false", clip(s))
		}
		return cql2.Literal{Value: v}, nil
	case "date", "datetime":
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return cql2.Literal{Value: t}, nil
		}
		// xsd:dateTime's zone is optional (GDAL sends a date compared
		// with a dateTime field as 2024-06-01T00:00:00): read as UTC.
		if t, err := time.Parse(localDateTime, s); err == nil {
			return cql2.Literal{Value: t}, nil
		}
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return cql2.Literal{Value: t, Date: true}, nil
		}
		return nil, invalid("filter", "%q is not a date or time (xsd:date or xsd:dateTime, such as 2024-06-01 or 2024-06-01T12:00:00Z; without a zone, UTC)", clip(s))
	case "time":
		// A time of day is stored as text that orders as the time does
		// (featurerows.TimeOfDay): the literal, in that form, compares as
		// text.
		if t, ok := featurerows.TimeOfDay(s); ok {
			return cql2.Literal{Value: t}, nil
		}
		return nil, invalid("filter", "%q is not a time of day (xsd:time, such as 12:00:00)", clip(s))
	}
	return cql2.Literal{Value: n.Text}, nil
}

// likePattern turns a pattern with the filter's wildcards into CQL2's
// (% any run, _ one character, \ escapes).
func likePattern(s, wild, single, esc string) string {
	if wild == "" {
		wild = "*"
	}
	if single == "" {
		single = "?"
	}
	if esc == "" {
		esc = "\\"
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], esc) && i+len(esc) < len(s):
			i += len(esc)
			_, size := decodeRune(s[i:])
			writeLikeLiteral(&b, s[i:i+size])
			i += size
		case strings.HasPrefix(s[i:], wild):
			b.WriteByte('%')
			i += len(wild)
		case strings.HasPrefix(s[i:], single):
			b.WriteByte('_')
			i += len(single)
		default:
			_, size := decodeRune(s[i:])
			writeLikeLiteral(&b, s[i:i+size])
			i += size
		}
	}
	return b.String()
}

func writeLikeLiteral(b *strings.Builder, s string) {
	if s == "%" || s == "_" || s == "\\" {
		b.WriteByte('\\')
	}
	b.WriteString(s)
}

// geometry reads a GML geometry (Envelope, Box, Point, LineString,
// Polygon) into CRS84.
func (p *filterParser) geometry(n *node) (geom.T, error) {
	srs := p.def
	if s := n.attr("srsName"); s != "" {
		var err error
		if srs, err = parseSRS(s); err != nil {
			return nil, srsProblem("filter", s, err)
		}
	}
	switch n.name() {
	case "Envelope", "Box":
		flat, err := coordsOf(n)
		if err != nil {
			return nil, err
		}
		if len(flat) != 4 {
			return nil, invalid("filter", "an Envelope needs two 2D corners")
		}
		b, outlines, err := boxToCRS84([4]float64{flat[0], flat[1], flat[2], flat[3]}, srs)
		if err != nil {
			return nil, invalid("filter", "the Envelope is outside its CRS's area")
		}
		// In a projected CRS, the Envelope's outline, not its envelope.
		switch len(outlines) {
		case 0:
		case 1:
			return outlines[0], nil
		default:
			mp := geom.NewMultiPolygon(geom.XY)
			for _, o := range outlines {
				if err := mp.Push(o); err != nil {
					return nil, err
				}
			}
			return mp, nil
		}
		ring := []float64{b[0], b[1], b[2], b[1], b[2], b[3], b[0], b[3], b[0], b[1]}
		return geom.NewPolygonFlat(geom.XY, ring, []int{len(ring)}), nil
	case "Point":
		flat, err := p.flat(n, srs)
		if err != nil || len(flat) != 2 {
			return nil, invalid("filter", "a Point needs one 2D position")
		}
		return geom.NewPointFlat(geom.XY, flat), nil
	case "LineString":
		flat, err := p.flat(n, srs)
		if err != nil || len(flat) < 4 {
			return nil, invalid("filter", "a LineString needs two 2D positions or more")
		}
		return geom.NewLineStringFlat(geom.XY, flat), nil
	case "Polygon":
		var flat []float64
		var ends []int
		var walk func(*node) error
		walk = func(m *node) error {
			for i := range m.Nodes {
				c := &m.Nodes[i]
				if c.name() == "LinearRing" {
					ring, err := p.flat(c, srs)
					if err != nil || len(ring) < 8 {
						return invalid("filter", "a LinearRing needs four 2D positions or more")
					}
					flat = append(flat, ring...)
					ends = append(ends, len(flat))
					continue
				}
				if err := walk(c); err != nil {
					return err
				}
			}
			return nil
		}
		if err := walk(n); err != nil {
			return nil, err
		}
		if len(ends) == 0 {
			return nil, invalid("filter", "a Polygon needs an exterior ring")
		}
		return geom.NewPolygonFlat(geom.XY, flat, ends), nil
	}
	return nil, invalid("filter", "the geometry %s is not supported: use Envelope, Point, LineString or Polygon", clip(n.name()))
}

// flat reads a geometry's 2D positions in CRS84.
func (p *filterParser) flat(n *node, srs SRS) ([]float64, error) {
	flat, err := coordsOf(n)
	if err != nil {
		return nil, err
	}
	if len(flat)%2 != 0 {
		return nil, invalid("filter", "positions must be 2D")
	}
	if err := toCRS84(flat, 2, srs); err != nil {
		return nil, invalid("filter", "a geometry is outside its CRS's area")
	}
	return flat, nil
}

// coordsOf collects the numbers of pos, posList, lowerCorner,
// upperCorner and coordinates (x,y pairs) under n, in document order.
func coordsOf(n *node) ([]float64, error) {
	var out []float64
	var walk func(*node) error
	walk = func(m *node) error {
		switch m.name() {
		case "pos", "posList", "lowerCorner", "upperCorner", "coordinates":
			text := m.Text
			if m.name() == "coordinates" {
				text = strings.ReplaceAll(text, ",", " ")
			}
			for _, f := range strings.Fields(text) {
				v, err := strconv.ParseFloat(f, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					return invalid("filter", "%q is not a coordinate", clip(f))
				}
				out = append(out, v)
			}
			return nil
		}
		for i := range m.Nodes {
			if err := walk(&m.Nodes[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(n)
}

// bboxParam reads the BBOX parameter (minx,miny,maxx,maxy[,crs]) into a
// CRS84 box and, in a CRS other than WGS 84, the box's exact outline;
// without a CRS the corners are in def.
func bboxParam(s string, def SRS) (of.Box, []*geom.Polygon, error) {
	parts := strings.Split(s, ",")
	srs := def
	if len(parts) == 5 {
		var err error
		if srs, err = parseSRS(parts[4]); err != nil {
			return of.Box{}, nil, srsProblem("bbox", parts[4], err)
		}
		parts = parts[:4]
	}
	if len(parts) != 4 {
		return of.Box{}, nil, invalid("bbox", "bbox must be minx,miny,maxx,maxy with an optional CRS")
	}
	var b [4]float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return of.Box{}, nil, invalid("bbox", "bbox value %q is not a number", clip(p))
		}
		b[i] = v
	}
	if b[0] > b[2] || b[1] > b[3] {
		return of.Box{}, nil, invalid("bbox", "bbox: a lower corner value is above the upper corner's")
	}
	out, outlines, err := boxToCRS84(b, srs)
	if err != nil {
		return of.Box{}, nil, invalid("bbox", "bbox is outside its CRS's area")
	}
	return of.Box(out), outlines, nil
}
