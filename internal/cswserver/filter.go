package cswserver

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
)

// maxConstraintBytes bounds a KVP constraint.
const maxConstraintBytes = 64 << 10

var compareOps = map[string]string{"PropertyIsEqualTo": "=", "PropertyIsNotEqualTo": "<>", "PropertyIsLessThan": "<",
	"PropertyIsGreaterThan": ">", "PropertyIsLessThanOrEqualTo": "<=", "PropertyIsGreaterThanOrEqualTo": ">="}

// spatialOps are the spatial operators served (all on boxes, in
// EPSG:4326), with the CQL2 predicate each is.
var spatialOps = map[string]string{"BBOX": "s_intersects", "Intersects": "s_intersects", "Disjoint": "s_disjoint",
	"Within": "s_within", "Contains": "s_contains"}

// SpatialOperators are the names the capabilities list: Within and
// Contains only where GEOS answers them (cql2.SpatialFunctionsServed).
func SpatialOperators() []string {
	if cql2.SpatialFunctionsServed() {
		return []string{"BBOX", "Intersects", "Disjoint", "Within", "Contains"}
	}
	return []string{"BBOX", "Intersects", "Disjoint"}
}

// parseFilterText reads a KVP Filter constraint.
func parseFilterText(s string) (cql2.Expr, error) {
	root, err := parseXML([]byte(s), maxConstraintBytes, "constraint")
	if err != nil {
		return nil, err
	}
	return filterExpr(root)
}

// filterExpr reads an OGC Filter 1.1 or FES 2.0 Filter element.
func filterExpr(root *node) (cql2.Expr, error) {
	if root.name() != "Filter" {
		return nil, bad("the constraint must be a Filter element, not %s", clip(root.name()))
	}
	var ids []cql2.Expr
	var out cql2.Expr
	for _, n := range root.Nodes {
		switch n.name() {
		case "ResourceId", "FeatureId", "GmlObjectId", "RecordId":
			id := firstOf(n.attr("rid"), n.attr("fid"), n.attr("id"), n.text())
			ids = append(ids, cql2.Literal{Value: id})
			continue
		}
		if out != nil {
			return nil, bad("a Filter holds one operator (combine several with And or Or)")
		}
		e, err := operator(n)
		if err != nil {
			return nil, err
		}
		out = e
	}
	switch {
	case out != nil && ids != nil:
		return nil, bad("resource ids cannot be combined with other operators")
	case ids != nil:
		return cql2.In{Arg: cql2.Property{Name: "id"}, List: ids}, nil
	case out == nil:
		return nil, bad("the Filter is empty")
	}
	return out, nil
}

func bad(format string, args ...any) *Exception { return invalid("constraint", format, args...) }

func operator(n *node) (cql2.Expr, error) {
	switch name := n.name(); name {
	case "And", "Or":
		if len(n.Nodes) < 2 {
			return nil, bad("%s needs two operands or more", name)
		}
		l := cql2.Logical{Op: strings.ToLower(name)}
		for _, c := range n.Nodes {
			e, err := operator(c)
			if err != nil {
				return nil, err
			}
			l.Args = append(l.Args, e)
		}
		return l, nil
	case "Not":
		if len(n.Nodes) != 1 {
			return nil, bad("Not takes one operand")
		}
		e, err := operator(n.Nodes[0])
		if err != nil {
			return nil, err
		}
		return cql2.Not{Arg: e}, nil
	case "PropertyIsLike":
		prop, lit, err := propertyAndLiteral(n, false)
		if err != nil {
			return nil, err
		}
		pat := likePattern(lit, firstOf(n.attr("wildCard"), "*"), firstOf(n.attr("singleChar"), "?"),
			firstOf(n.attr("escapeChar"), n.attr("escape"), "\\"))
		// Like is case-insensitive, as pycsw's (an SQL ILIKE).
		return cql2.Like{Arg: cql2.CaseI{Arg: prop}, Pattern: cql2.CaseI{Arg: cql2.Literal{Value: pat}}}, nil
	case "PropertyIsNull", "PropertyIsNil":
		p, err := propertyOf(n)
		if err != nil {
			return nil, err
		}
		return cql2.IsNull{Arg: p}, nil
	case "PropertyIsBetween":
		p, err := propertyOf(n)
		if err != nil {
			return nil, err
		}
		lo, hi := n.child("LowerBoundary"), n.child("UpperBoundary")
		if lo == nil || hi == nil {
			return nil, bad("PropertyIsBetween needs a LowerBoundary and an UpperBoundary")
		}
		return cql2.Between{Arg: p, Low: literal(p.Name, boundary(lo)), High: literal(p.Name, boundary(hi))}, nil
	}
	if op, ok := compareOps[n.name()]; ok {
		prop, lit, err := propertyAndLiteral(n, true)
		if err != nil {
			return nil, err
		}
		var l, r cql2.Expr = prop, literal(prop.Name, lit)
		if strings.EqualFold(n.attr("matchCase"), "false") {
			l, r = cql2.CaseI{Arg: l}, cql2.CaseI{Arg: r}
		}
		return cql2.Compare{Op: op, Left: l, Right: r}, nil
	}
	if op, ok := spatialOps[n.name()]; ok {
		return spatial(n, op)
	}
	return nil, &Exception{Status: 400, Code: CodeOperationNotSupported, Locator: "constraint",
		Text: "the filter operator " + clip(n.name()) + " is not supported"}
}

func boundary(n *node) string {
	if l := n.child("Literal"); l != nil {
		return l.text()
	}
	return n.text()
}

// propertyOf is the operator's PropertyName (1.1) or ValueReference
// (2.0) as a record property.
func propertyOf(n *node) (cql2.Property, error) {
	for _, c := range n.Nodes {
		if c.name() == "PropertyName" || c.name() == "ValueReference" {
			name := queryable(c.text())
			if name == "" {
				return cql2.Property{}, bad("%s is not a queryable", clip(c.text()))
			}
			return cql2.Property{Name: name}, nil
		}
	}
	return cql2.Property{}, bad("%s needs a PropertyName", n.name())
}

func propertyAndLiteral(n *node, anyLiteral bool) (cql2.Property, string, error) {
	p, err := propertyOf(n)
	if err != nil {
		return p, "", err
	}
	l := n.child("Literal")
	if l == nil {
		return p, "", bad("%s needs a Literal", n.name())
	}
	if p.Name == "geometry" {
		return p, "", bad("the bounding box is compared with spatial operators only")
	}
	return p, l.text(), nil
}

// literal is a filter literal for property prop: a time for the dates
// when it reads as one (so comparisons are by instant), else the text.
func literal(prop, s string) cql2.Expr {
	if dateProps[prop] {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return cql2.Literal{Value: t}
		}
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return cql2.Literal{Value: t, Date: true}
		}
	}
	return cql2.Literal{Value: s}
}

// likePattern turns a Filter pattern into CQL2's (% and _, \ escapes).
func likePattern(s, wild, single, esc string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], esc) && i+len(esc) < len(s):
			i += len(esc)
			n := runeLen(s[i:])
			writeLikeLiteral(&b, s[i:i+n])
			i += n
		case strings.HasPrefix(s[i:], wild):
			b.WriteByte('%')
			i += len(wild)
		case strings.HasPrefix(s[i:], single):
			b.WriteByte('_')
			i += len(single)
		default:
			n := runeLen(s[i:])
			writeLikeLiteral(&b, s[i:i+n])
			i += n
		}
	}
	return b.String()
}

func runeLen(s string) int {
	for i := range s {
		if i > 0 {
			return i
		}
	}
	return len(s)
}

func writeLikeLiteral(b *strings.Builder, s string) {
	if s == "%" || s == "_" || s == "\\" {
		b.WriteByte('\\')
	}
	b.WriteString(s)
}

// spatial reads BBOX, Intersects, ... with an Envelope (or Box) against
// the record's extent.
func spatial(n *node, op string) (cql2.Expr, error) {
	var env *node
	for _, c := range n.Nodes {
		switch c.name() {
		case "PropertyName", "ValueReference":
			if queryable(c.text()) != "geometry" {
				return nil, bad("%s applies to ows:BoundingBox, not %s", n.name(), clip(c.text()))
			}
		case "Envelope", "Box":
			env = c
		default:
			return nil, bad("%s takes a gml:Envelope, not %s", n.name(), clip(c.name()))
		}
	}
	if env == nil {
		return nil, bad("%s needs a gml:Envelope", n.name())
	}
	box, err := envelope(env)
	if err != nil {
		return nil, err
	}
	if (op == "s_within" || op == "s_contains") && !cql2.SpatialFunctionsServed() {
		return nil, &Exception{Status: 400, Code: CodeOperationNotSupported, Locator: "constraint",
			Text: n.name() + " is not available on this server"}
	}
	return cql2.Spatial{Op: op, A: cql2.Property{Name: "geometry"}, B: cql2.Literal{Value: boxPolygon(box)}}, nil
}

// envelope reads an Envelope's corners as [w, s, e, n]. Without srsName,
// or in CRS84 or "EPSG:4326", corners are longitude latitude; in the
// EPSG URN and URL forms of 4326, latitude longitude (the EPSG axis
// order). Other CRSs are refused (records are in EPSG:4326).
func envelope(n *node) ([]float64, error) {
	var nums []float64
	for _, c := range n.Nodes {
		text := c.Text
		switch c.name() {
		case "coordinates":
			text = strings.ReplaceAll(text, ",", " ")
		case "lowerCorner", "upperCorner", "pos":
		default:
			continue
		}
		for _, f := range strings.Fields(text) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, bad("%q is not a coordinate", clip(f))
			}
			nums = append(nums, v)
		}
	}
	if len(nums) != 4 {
		return nil, bad("an Envelope needs two 2D corners")
	}
	latFirst, err := latitudeFirst(n.attr("srsName"))
	if err != nil {
		return nil, err
	}
	if latFirst {
		nums = []float64{nums[1], nums[0], nums[3], nums[2]}
	}
	if nums[0] > nums[2] || nums[1] > nums[3] {
		return nil, bad("the Envelope's lower corner must not exceed its upper corner")
	}
	return nums, nil
}

func latitudeFirst(srs string) (bool, error) {
	s := strings.ToLower(strings.TrimSpace(srs))
	switch {
	case s == "", s == "epsg:4326", strings.HasSuffix(s, "crs84"):
		return false, nil
	case strings.HasPrefix(s, "urn:ogc:def:crs:epsg:") && strings.HasSuffix(s, ":4326"),
		strings.HasPrefix(s, "urn:x-ogc:def:crs:epsg:") && strings.HasSuffix(s, ":4326"),
		s == "http://www.opengis.net/def/crs/epsg/0/4326":
		return true, nil
	case strings.HasSuffix(s, "#4326"):
		return false, nil
	}
	return false, bad("envelopes are in EPSG:4326 or CRS84, not %s", clip(srs))
}

func boxPolygon(b []float64) geom.T {
	ring := []float64{b[0], b[1], b[2], b[1], b[2], b[3], b[0], b[3], b[0], b[1]}
	return geom.NewPolygonFlat(geom.XY, ring, []int{len(ring)})
}
