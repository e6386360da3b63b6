package cql2

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/geodesic"
	"github.com/geopub/geopub/internal/relate"
)

// Feature is what a filter is evaluated against.
type Feature struct {
	// Props are the attribute values as JSON decodes them (string,
	// float64, bool, nil, ...); a missing name is null.
	Props map[string]any
	// Geometry returns the feature's geometry (nil when it has none); it
	// is called only by spatial predicates.
	Geometry func() geom.T
	// IsGeometry reports whether a property name stands for the geometry.
	IsGeometry func(name string) bool
}

// truth is a three-valued logic value.
type truth int8

const (
	unknown truth = -1
	no      truth = 0
	yes     truth = 1
)

func of(b bool) truth {
	if b {
		return yes
	}
	return no
}

// Match reports whether e is true for f.
func Match(e Expr, f *Feature) bool { return eval(e, f) == yes }

func eval(e Expr, f *Feature) truth {
	switch e := e.(type) {
	case Logical:
		out := yes
		if e.Op == "or" {
			out = no
		}
		for _, a := range e.Args {
			v := eval(a, f)
			switch {
			case e.Op == "and" && v == no, e.Op == "or" && v == yes:
				return v
			case v == unknown:
				out = unknown
			}
		}
		return out
	case Not:
		switch eval(e.Arg, f) {
		case yes:
			return no
		case no:
			return yes
		}
		return unknown
	case Literal:
		if b, ok := e.Value.(bool); ok {
			return of(b)
		}
		return unknown
	case Property:
		if b, ok := f.Props[e.Name].(bool); ok {
			return of(b)
		}
		return unknown
	case Compare:
		c, ok := compare(value(e.Left, f), value(e.Right, f))
		if !ok {
			if e.Op == "<>" || e.Op == "=" {
				// Values of different kinds (that are not null) differ.
				a, b := value(e.Left, f), value(e.Right, f)
				if a.v != nil && b.v != nil {
					return of(e.Op == "<>")
				}
			}
			return unknown
		}
		switch e.Op {
		case "=":
			return of(c == 0)
		case "<>":
			return of(c != 0)
		case "<":
			return of(c < 0)
		case "<=":
			return of(c <= 0)
		case ">":
			return of(c > 0)
		case ">=":
			return of(c >= 0)
		}
	case Between:
		v := value(e.Arg, f)
		lo, ok1 := compare(v, value(e.Low, f))
		hi, ok2 := compare(v, value(e.High, f))
		if !ok1 || !ok2 {
			return unknown
		}
		return of(lo >= 0 && hi <= 0)
	case In:
		v := value(e.Arg, f)
		if v.v == nil {
			return unknown
		}
		out := no
		for _, item := range e.List {
			c, ok := compare(v, value(item, f))
			if !ok {
				continue
			}
			if c == 0 {
				return yes
			}
		}
		return out
	case IsNull:
		return of(value(e.Arg, f).v == nil)
	case Like:
		s, ok1 := value(e.Arg, f).v.(string)
		pat, ok2 := value(e.Pattern, f).v.(string)
		if !ok1 || !ok2 {
			return unknown
		}
		return of(likeRegexp(pat).MatchString(s))
	case Spatial:
		a, b := geometryOf(e.A, f), geometryOf(e.B, f)
		if a == nil || b == nil {
			return unknown
		}
		switch e.Op {
		case "", "s_intersects":
			return of(Intersects(a, b))
		case "s_disjoint":
			// Disjoint is "not intersects" (OGC 06-103r4, 6.1.15.3), so
			// it needs no GEOS and agrees with S_INTERSECTS.
			return of(!Intersects(a, b))
		}
		ok, err := relate.Relate(e.Op, a, b)
		if err != nil {
			return unknown
		}
		return of(ok)
	case Distance:
		d, ok := distance(geometryOf(e.A, f), geometryOf(e.B, f))
		if !ok {
			return unknown
		}
		if e.Op == "s_beyond" {
			return of(d > e.Metres)
		}
		return of(d <= e.Metres)
	}
	return unknown
}

// distance is the distance in metres between a and b, one of them a
// point; ok is false when neither is.
func distance(a, b geom.T) (float64, bool) {
	if a == nil || b == nil {
		return 0, false
	}
	if p, ok := b.(*geom.Point); ok && !p.Empty() {
		a, b = b, a
	}
	p, ok := a.(*geom.Point)
	if !ok || p.Empty() {
		return 0, false
	}
	return geodesic.Distance(geodesic.Point{Lon: p.X(), Lat: p.Y()}, b), true
}

// operand is a resolved value: v is string, float64, bool, time.Time or
// nil (null); date marks a DATE literal.
type operand struct {
	v    any
	date bool
}

func value(e Expr, f *Feature) operand {
	switch e := e.(type) {
	case Literal:
		return operand{v: e.Value, date: e.Date}
	case Property:
		switch v := f.Props[e.Name].(type) {
		case string, float64, bool:
			return operand{v: v}
		}
	case CaseI:
		v := value(e.Arg, f)
		if s, ok := v.v.(string); ok {
			v.v = fold(s)
		}
		return v
	case AccentI:
		v := value(e.Arg, f)
		if s, ok := v.v.(string); ok {
			v.v = stripAccents(s)
		}
		return v
	}
	return operand{}
}

func geometryOf(e Expr, f *Feature) geom.T {
	switch e := e.(type) {
	case Literal:
		g, _ := e.Value.(geom.T)
		return g
	case Property:
		if f.IsGeometry != nil && f.IsGeometry(e.Name) && f.Geometry != nil {
			return f.Geometry()
		}
	}
	return nil
}

// compare orders two operands of one kind; a string meets a time by being
// read as one. ok is false for nulls and mixed kinds.
func compare(a, b operand) (int, bool) {
	if a.v == nil || b.v == nil {
		return 0, false
	}
	if t, ok := b.v.(time.Time); ok {
		return compareTime(a, t, b.date)
	}
	if t, ok := a.v.(time.Time); ok {
		c, ok := compareTime(b, t, a.date)
		return -c, ok
	}
	switch x := a.v.(type) {
	case float64:
		if y, ok := b.v.(float64); ok {
			return cmp3(x < y, x > y), true
		}
	case string:
		if y, ok := b.v.(string); ok {
			return strings.Compare(x, y), true
		}
	case bool:
		if y, ok := b.v.(bool); ok && x == y {
			return 0, true
		} else if ok {
			return 1, true
		}
	}
	return 0, false
}

func cmp3(less, more bool) int {
	switch {
	case less:
		return -1
	case more:
		return 1
	}
	return 0
}

// compareTime orders a (a time, or a string holding one) against t; a
// DATE compares calendar days.
func compareTime(a operand, t time.Time, date bool) (int, bool) {
	var at time.Time
	switch v := a.v.(type) {
	case time.Time:
		at = v
	case string:
		var err error
		if at, err = time.Parse(time.RFC3339Nano, v); err != nil {
			if at, err = time.Parse("2006-01-02", v); err != nil {
				return 0, false
			}
		}
	default:
		return 0, false
	}
	if date {
		at = at.UTC().Truncate(24 * time.Hour)
		t = t.UTC().Truncate(24 * time.Hour)
	}
	return cmp3(at.Before(t), at.After(t)), true
}

// likeCache holds compiled LIKE patterns, up to likeCacheMax of them (a
// client cannot grow it without bound).
var (
	likeCache     sync.Map // pattern → *regexp.Regexp
	likeCacheSize atomic.Int64
)

const likeCacheMax = 1000

// likeRegexp compiles a LIKE pattern: % any run, _ one character, \
// escapes the next character.
func likeRegexp(pat string) *regexp.Regexp {
	if r, ok := likeCache.Load(pat); ok {
		return r.(*regexp.Regexp)
	}
	var b strings.Builder
	b.WriteString("(?s)^")
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 < len(rs) {
				i++
				b.WriteString(regexp.QuoteMeta(string(rs[i])))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	r := regexp.MustCompile(b.String())
	if likeCacheSize.Add(1) <= likeCacheMax {
		likeCache.Store(pat, r)
	}
	return r
}
