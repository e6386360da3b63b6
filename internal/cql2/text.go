package cql2

import (
	"strconv"
	"strings"
	"time"

	"github.com/twpayne/go-geom"
)

// maxDepth bounds nesting, so a hostile filter cannot exhaust the stack.
const maxDepth = 64

// ParseText parses the CQL2 text encoding.
func ParseText(s string) (Expr, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	e, err := p.boolExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, errorf("unexpected %q at %d", t.text, t.pos+1)
	}
	return e, nil
}

type parser struct {
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// keyword reports whether the next token is the keyword kw (any case),
// consuming it when it is.
func (p *parser) keyword(kw string) bool {
	t := p.peek()
	if t.kind == tIdent && strings.EqualFold(t.text, kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) op(o string) bool {
	t := p.peek()
	if t.kind == tOp && t.text == o {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(o string) error {
	if !p.op(o) {
		t := p.peek()
		return errorf("expected %q at %d, found %q", o, t.pos+1, t.text)
	}
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errorf("the filter nests deeper than %d levels", maxDepth)
	}
	return nil
}

func (p *parser) boolExpr() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	left, err := p.boolTerm()
	if err != nil {
		return nil, err
	}
	args := []Expr{left}
	for p.keyword("OR") {
		r, err := p.boolTerm()
		if err != nil {
			return nil, err
		}
		args = append(args, r)
	}
	if len(args) == 1 {
		return left, nil
	}
	return Logical{Op: "or", Args: args}, nil
}

func (p *parser) boolTerm() (Expr, error) {
	left, err := p.boolFactor()
	if err != nil {
		return nil, err
	}
	args := []Expr{left}
	for p.keyword("AND") {
		r, err := p.boolFactor()
		if err != nil {
			return nil, err
		}
		args = append(args, r)
	}
	if len(args) == 1 {
		return left, nil
	}
	return Logical{Op: "and", Args: args}, nil
}

func (p *parser) boolFactor() (Expr, error) {
	if p.keyword("NOT") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		e, err := p.boolFactor()
		if err != nil {
			return nil, err
		}
		return Not{Arg: e}, nil
	}
	if p.peek().kind == tOp && p.peek().text == "(" {
		// A parenthesised boolean expression.
		save := p.i
		p.i++
		e, err := p.boolExpr()
		if err == nil && p.op(")") {
			return e, nil
		}
		p.i = save
	}
	return p.predicate()
}

var compareOps = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

func (p *parser) predicate() (Expr, error) {
	t := p.peek()
	call := t.kind == tIdent && p.toks[p.i+1].text == "("
	if call && strings.HasPrefix(strings.ToUpper(t.text), "S_") {
		return p.spatial()
	}
	if call && strings.HasPrefix(strings.ToUpper(t.text), "T_") {
		return nil, errorf("%s at %d is not supported: temporal functions are not offered", t.text, t.pos+1)
	}
	left, err := p.scalar()
	if err != nil {
		return nil, err
	}
	if o := p.peek(); o.kind == tOp && compareOps[o.text] {
		p.i++
		right, err := p.scalar()
		if err != nil {
			return nil, err
		}
		return Compare{Op: o.text, Left: left, Right: right}, nil
	}
	if p.keyword("IS") {
		not := p.keyword("NOT")
		if !p.keyword("NULL") {
			return nil, errorf("expected NULL at %d", p.peek().pos+1)
		}
		return negate(IsNull{Arg: left}, not), nil
	}
	not := p.keyword("NOT")
	switch {
	case p.keyword("LIKE"):
		pat, err := p.scalar()
		if err != nil {
			return nil, err
		}
		return negate(Like{Arg: left, Pattern: pat}, not), nil
	case p.keyword("BETWEEN"):
		lo, err := p.scalar()
		if err != nil {
			return nil, err
		}
		if !p.keyword("AND") {
			return nil, errorf("expected AND in BETWEEN at %d", p.peek().pos+1)
		}
		hi, err := p.scalar()
		if err != nil {
			return nil, err
		}
		return negate(Between{Arg: left, Low: lo, High: hi}, not), nil
	case p.keyword("IN"):
		if err := p.expect("("); err != nil {
			return nil, err
		}
		var list []Expr
		for {
			v, err := p.scalar()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			if p.op(")") {
				break
			}
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		return negate(In{Arg: left, List: list}, not), nil
	}
	if not {
		return nil, errorf("expected LIKE, BETWEEN or IN after NOT at %d", p.peek().pos+1)
	}
	if l, ok := left.(Literal); ok {
		if _, isBool := l.Value.(bool); isBool {
			return l, nil
		}
	}
	o := p.peek()
	return nil, errorf("expected a comparison at %d, found %q", o.pos+1, o.text)
}

func negate(e Expr, not bool) Expr {
	if not {
		return Not{Arg: e}
	}
	return e
}

// spatial reads a spatial function: S_INTERSECTS(a, b) and the like.
func (p *parser) spatial() (Expr, error) {
	name := p.next()
	op, err := spatialOp(name.text)
	if err != nil {
		return nil, err
	}
	p.i++ // (
	a, err := p.geomExpr()
	if err != nil {
		return nil, err
	}
	if !p.op(",") {
		return nil, errorf("%s takes two geometries: expected \",\" at %d, found %q", name.text, p.peek().pos+1, p.peek().text)
	}
	b, err := p.geomExpr()
	if err != nil {
		return nil, err
	}
	if !p.op(")") {
		return nil, errorf("%s takes two geometries: expected \")\" at %d, found %q", name.text, p.peek().pos+1, p.peek().text)
	}
	return Spatial{Op: op, A: a, B: b}, nil
}

// stringFunction reads the rest of CASEI(...) or ACCENTI(...), whose
// name is t: one character expression, that is a string, a property or
// another CASEI or ACCENTI (OGC 21-065r2, characterClause).
func (p *parser) stringFunction(t token) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // (
	var arg Expr
	switch a := p.next(); {
	case a.kind == tString:
		arg = Literal{Value: a.text}
	case a.kind == tQuoted:
		arg = Property{Name: a.text}
	case a.kind == tIdent && isStringFunction(a.text) && p.peek().text == "(":
		var err error
		if arg, err = p.stringFunction(a); err != nil {
			return nil, err
		}
	case a.kind == tIdent && p.peek().text != "(" && !strings.EqualFold(a.text, "TRUE") && !strings.EqualFold(a.text, "FALSE"):
		arg = Property{Name: a.text}
	case a.kind == tOp && a.text == ")":
		return nil, errorf("%s at %d takes one argument, a string or a property", t.text, t.pos+1)
	default:
		return nil, errorf("%s at %d takes a string or a property, not %q", t.text, t.pos+1, a.text)
	}
	if !p.op(")") {
		return nil, errorf("%s at %d takes one argument, a string or a property: expected \")\" at %d, found %q", t.text, t.pos+1, p.peek().pos+1, p.peek().text)
	}
	return stringFunction(t.text, arg), nil
}

// scalar reads a property, a literal, or a parenthesised scalar.
func (p *parser) scalar() (Expr, error) {
	t := p.next()
	switch t.kind {
	case tString:
		return Literal{Value: t.text}, nil
	case tNumber:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, errorf("%q at %d is not a number", t.text, t.pos+1)
		}
		return Literal{Value: f}, nil
	case tQuoted:
		return Property{Name: t.text}, nil
	case tOp:
		if t.text == "-" || t.text == "+" {
			n := p.next()
			if n.kind != tNumber {
				return nil, errorf("expected a number after %q at %d", t.text, t.pos+1)
			}
			f, err := strconv.ParseFloat(t.text+n.text, 64)
			if err != nil {
				return nil, errorf("%q at %d is not a number", n.text, n.pos+1)
			}
			return Literal{Value: f}, nil
		}
	case tIdent:
		up := strings.ToUpper(t.text)
		switch {
		case up == "TRUE" || up == "FALSE":
			return Literal{Value: up == "TRUE"}, nil
		case (up == "TIMESTAMP" || up == "DATE") && p.peek().text == "(":
			p.i++
			s := p.next()
			if s.kind != tString {
				return nil, errorf("%s takes a quoted string at %d", up, s.pos+1)
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return timeLiteral(s.text, up == "DATE")
		case isStringFunction(up) && p.peek().text == "(":
			return p.stringFunction(t)
		case isGeometryKeyword(up) && p.peek().text == "(":
			p.i--
			return p.geomExpr()
		case p.peek().text == "(":
			return nil, errorf("function %s at %d is not supported", t.text, t.pos+1)
		}
		return Property{Name: t.text}, nil
	}
	if t.kind == tEOF {
		return nil, errorf("the filter ends where a value is expected")
	}
	return nil, errorf("expected a value at %d, found %q", t.pos+1, t.text)
}

// timeLiteral reads TIMESTAMP('...') or DATE('...').
func timeLiteral(s string, date bool) (Expr, error) {
	layout := time.RFC3339Nano
	if date {
		layout = "2006-01-02"
	}
	v, err := time.Parse(layout, s)
	if err != nil {
		if date {
			return nil, errorf("DATE(%q) is not a date (YYYY-MM-DD)", s)
		}
		return nil, errorf("TIMESTAMP(%q) is not an RFC 3339 timestamp", s)
	}
	return Literal{Value: v, Date: date}, nil
}

func isGeometryKeyword(up string) bool {
	switch up {
	case "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION", "BBOX":
		return true
	}
	return false
}

// geomExpr reads a property or a geometry literal (WKT or BBOX).
func (p *parser) geomExpr() (Expr, error) {
	t := p.peek()
	if t.kind == tIdent && isGeometryKeyword(strings.ToUpper(t.text)) && p.toks[p.i+1].text == "(" {
		g, err := p.wkt()
		if err != nil {
			return nil, err
		}
		return Literal{Value: g}, nil
	}
	if t.kind == tIdent || t.kind == tQuoted {
		p.i++
		return Property{Name: t.text}, nil
	}
	return nil, errorf("expected a geometry at %d, found %q", t.pos+1, t.text)
}

// number reads a signed number.
func (p *parser) number() (float64, error) {
	sign := ""
	if p.op("-") {
		sign = "-"
	} else {
		p.op("+")
	}
	t := p.next()
	if t.kind != tNumber {
		return 0, errorf("expected a number at %d, found %q", t.pos+1, t.text)
	}
	f, err := strconv.ParseFloat(sign+t.text, 64)
	if err != nil {
		return 0, errorf("%q at %d is not a number", t.text, t.pos+1)
	}
	return f, nil
}

// position reads "x y" (a third number, a height, is dropped).
func (p *parser) position() ([]float64, error) {
	x, err := p.number()
	if err != nil {
		return nil, err
	}
	y, err := p.number()
	if err != nil {
		return nil, err
	}
	if p.peek().kind == tNumber || p.peek().text == "-" {
		if _, err := p.number(); err != nil {
			return nil, err
		}
	}
	return []float64{x, y}, nil
}

// positions reads "( x y, x y, ... )".
func (p *parser) positions() ([]float64, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var flat []float64
	for {
		// MULTIPOINT also allows each point in parentheses.
		paren := p.op("(")
		xy, err := p.position()
		if err != nil {
			return nil, err
		}
		if paren {
			if err := p.expect(")"); err != nil {
				return nil, err
			}
		}
		flat = append(flat, xy...)
		if p.op(")") {
			return flat, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
}

// rings reads "( (ring), (ring) )", returning the flat coordinates and
// ends.
func (p *parser) rings() ([]float64, []int, error) {
	if err := p.expect("("); err != nil {
		return nil, nil, err
	}
	var flat []float64
	var ends []int
	for {
		r, err := p.positions()
		if err != nil {
			return nil, nil, err
		}
		flat = append(flat, r...)
		ends = append(ends, len(flat))
		if p.op(")") {
			return flat, ends, nil
		}
		if err := p.expect(","); err != nil {
			return nil, nil, err
		}
	}
}

// wkt reads a WKT geometry or BBOX(minx, miny, maxx, maxy).
func (p *parser) wkt() (geom.T, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	kw := strings.ToUpper(p.next().text)
	switch kw {
	case "BBOX":
		if err := p.expect("("); err != nil {
			return nil, err
		}
		var b []float64
		for {
			f, err := p.number()
			if err != nil {
				return nil, err
			}
			b = append(b, f)
			if p.op(")") {
				break
			}
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		return bboxPolygon(b)
	case "POINT":
		if err := p.expect("("); err != nil {
			return nil, err
		}
		xy, err := p.position()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return geom.NewPointFlat(geom.XY, xy), nil
	case "LINESTRING":
		flat, err := p.positions()
		if err != nil {
			return nil, err
		}
		if len(flat) < 4 {
			return nil, errorf("a LINESTRING needs two positions")
		}
		return geom.NewLineStringFlat(geom.XY, flat), nil
	case "MULTIPOINT":
		flat, err := p.positions()
		if err != nil {
			return nil, err
		}
		return geom.NewMultiPointFlat(geom.XY, flat), nil
	case "POLYGON":
		flat, ends, err := p.rings()
		if err != nil {
			return nil, err
		}
		return geom.NewPolygonFlat(geom.XY, flat, ends), nil
	case "MULTILINESTRING":
		flat, ends, err := p.rings()
		if err != nil {
			return nil, err
		}
		return geom.NewMultiLineStringFlat(geom.XY, flat, ends), nil
	case "MULTIPOLYGON":
		if err := p.expect("("); err != nil {
			return nil, err
		}
		mp := geom.NewMultiPolygon(geom.XY)
		for {
			flat, ends, err := p.rings()
			if err != nil {
				return nil, err
			}
			if err := mp.Push(geom.NewPolygonFlat(geom.XY, flat, ends)); err != nil {
				return nil, errorf("bad MULTIPOLYGON: %v", err)
			}
			if p.op(")") {
				return mp, nil
			}
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
	case "GEOMETRYCOLLECTION":
		if err := p.expect("("); err != nil {
			return nil, err
		}
		gc := geom.NewGeometryCollection()
		for {
			g, err := p.wkt()
			if err != nil {
				return nil, err
			}
			if err := gc.Push(g); err != nil {
				return nil, errorf("bad GEOMETRYCOLLECTION: %v", err)
			}
			if p.op(")") {
				return gc, nil
			}
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
	}
	return nil, errorf("%s is not a geometry type", kw)
}

// bboxPolygon turns 4 (or 6) numbers into the box's polygon.
func bboxPolygon(b []float64) (geom.T, error) {
	switch len(b) {
	case 4:
	case 6:
		b = []float64{b[0], b[1], b[3], b[4]}
	default:
		return nil, errorf("BBOX takes 4 or 6 numbers, not %d", len(b))
	}
	if b[1] > b[3] || b[0] > b[2] {
		return nil, errorf("BBOX: the lower corner is above the upper corner")
	}
	return geom.NewPolygonFlat(geom.XY, []float64{b[0], b[1], b[2], b[1], b[2], b[3], b[0], b[3], b[0], b[1]}, []int{10}), nil
}
