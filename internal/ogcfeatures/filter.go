package ogcfeatures

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
)

// maxFilterBytes bounds the filter parameter.
const maxFilterBytes = 64 << 10

// parseFilter reads filter in filter-lang (cql2-text by default, or
// cql2-json), checks that it names only c's queryables, and brings its
// geometry literals from filter-crs to CRS84.
func parseFilter(q map[string][]string, s string, c *Collection) (cql2.Expr, error) {
	if len(s) > maxFilterBytes {
		return nil, invalid("filter is longer than %d bytes", maxFilterBytes)
	}
	lang := "cql2-text"
	if l, ok := single(q, "filter-lang"); ok {
		lang = strings.ToLower(strings.TrimSpace(l))
	}
	var (
		e   cql2.Expr
		err error
	)
	switch lang {
	case "cql2-text":
		e, err = cql2.ParseText(s)
	case "cql2-json":
		e, err = cql2.ParseJSON([]byte(s))
	default:
		return nil, invalid("filter-lang must be cql2-text or cql2-json, not %q", clip(lang))
	}
	if err != nil {
		return nil, invalid("filter: %v", err)
	}
	known := map[string]bool{}
	for _, f := range c.Fields {
		known[f.Name] = true
	}
	for _, name := range cql2.Properties(e) {
		if !known[name] && !c.IsGeometry(name) {
			return nil, invalid("filter: %q is not a queryable of %s (see its queryables)", clip(name), c.ID)
		}
	}
	if err := checkStringFunctions(e, c); err != nil {
		return nil, err
	}
	if s, ok := single(q, "filter-crs"); ok {
		crs, err := ParseCRS(s)
		if err != nil {
			return nil, CRSProblem("filter-crs", s, err)
		}
		if !crs.IsCRS84() {
			t, err := NewTransformer(crs)
			if err != nil {
				return nil, err
			}
			defer t.Close()
			if err := toCRS84(e, t); err != nil {
				return nil, invalid("filter: a geometry is outside the area of filter-crs")
			}
		}
	}
	if err := checkCRS84Range(e); err != nil {
		return nil, err
	}
	return e, nil
}

// checkStringFunctions refuses CASEI or ACCENTI of a queryable that is
// not a string: OGC 21-065r2 has them take a character expression
// ("CASEI({queryable})" for "each queryable {queryable} of type String",
// A.5.1), and the queryables say which are.
func checkStringFunctions(e cql2.Expr, c *Collection) error {
	types := map[string]string{}
	for _, f := range c.Fields {
		types[f.Name] = f.Type
	}
	var err error
	cql2.Walk(e, func(e cql2.Expr) {
		var arg cql2.Expr
		var name string
		switch e := e.(type) {
		case cql2.CaseI:
			arg, name = e.Arg, "CASEI"
		case cql2.AccentI:
			arg, name = e.Arg, "ACCENTI"
		default:
			return
		}
		p, ok := arg.(cql2.Property)
		if !ok || err != nil {
			return
		}
		t := types[p.Name]
		if c.IsGeometry(p.Name) {
			t = "geometry"
		}
		switch t {
		case "integer", "double", "boolean", "geometry":
			err = invalid("filter: %s takes a string, and %q is a%s %s queryable", name, clip(p.Name), article(t), t)
		}
	})
	return err
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
}

// checkCRS84Range refuses a geometry literal outside CRS84's range
// (longitude -180..180, latitude -90..90): CQL2's spatial tests expect
// "S_INTERSECTS({queryable},POINT(90 180))" to fail as an "invalid
// coordinate" (OGC 21-065r2, A.9.1).
func checkCRS84Range(e cql2.Expr) error {
	var err error
	cql2.Walk(e, func(e cql2.Expr) {
		l, ok := e.(cql2.Literal)
		if !ok || err != nil {
			return
		}
		g, ok := l.Value.(geom.T)
		if !ok {
			return
		}
		if gc, ok := g.(*geom.GeometryCollection); ok {
			for _, m := range gc.Geoms() {
				if err = checkCRS84Range(cql2.Literal{Value: m}); err != nil {
					return
				}
			}
			return
		}
		flat, stride := g.FlatCoords(), g.Stride()
		for i := 0; i+1 < len(flat); i += stride {
			if x, y := flat[i], flat[i+1]; x < -180 || x > 180 || y < -90 || y > 90 {
				err = invalid("filter: the position (%g %g) is outside CRS84 (longitude -180..180, latitude -90..90)", x, y)
				return
			}
		}
	})
	return err
}

// toCRS84 transforms every geometry literal of e in place.
func toCRS84(e cql2.Expr, t *Transformer) error {
	var err error
	cql2.Walk(e, func(e cql2.Expr) {
		if l, ok := e.(cql2.Literal); ok && err == nil {
			if g, ok := l.Value.(geom.T); ok {
				err = inverse(g, t)
			}
		}
	})
	return err
}

func inverse(g geom.T, t *Transformer) error {
	if c, ok := g.(*geom.GeometryCollection); ok {
		for _, m := range c.Geoms() {
			if err := inverse(m, t); err != nil {
				return err
			}
		}
		return nil
	}
	return t.Inverse(g.FlatCoords(), g.Stride())
}

// IsGeometry reports whether a queryable name stands for the geometry:
// "geometry" or the layer's geometry field.
func (c *Collection) IsGeometry(name string) bool {
	return !c.Table && (name == "geometry" || c.GeometryField != "" && name == c.GeometryField)
}

// filterFeature is a stored row as a CQL2 filter sees it.
func filterFeature(c *Collection, raw, attrs []byte) *cql2.Feature {
	var props map[string]any
	_ = json.Unmarshal(attrs, &props)
	var g geom.T
	decoded := false
	return &cql2.Feature{Props: props, IsGeometry: c.IsGeometry, Geometry: func() geom.T {
		if !decoded {
			decoded = true
			g, _ = Geometry(raw, nil)
		}
		return g
	}}
}

// Queryables is the JSON Schema of a collection's queryables.
func Queryables(c *Collection, base string) map[string]any {
	props := map[string]any{}
	for _, f := range c.Fields {
		p := map[string]any{"title": f.Name}
		switch f.Type {
		case "integer":
			p["type"] = "integer"
		case "double":
			p["type"] = "number"
		case "boolean":
			p["type"] = "boolean"
		case "date":
			p["type"], p["format"] = "string", "date"
		case "datetime":
			p["type"], p["format"] = "string", "date-time"
		case "time":
			// A time of day, "12:34:56" (JSON Schema's time format
			// without its zone); it compares as text, '12:00:00'.
			p["type"], p["format"] = "string", "time"
		default:
			p["type"] = "string"
		}
		props[f.Name] = p
	}
	if !c.Table {
		props["geometry"] = map[string]any{"title": "geometry", "format": "geometry-any"}
	}
	return map[string]any{
		"$schema":    "https://json-schema.org/draft/2020-12/schema",
		"$id":        base + "/collections/" + c.ID + "/queryables",
		"type":       "object",
		"title":      c.Title,
		"properties": props,
	}
}

// SpatialBounds returns bounds in CRS84 that every feature e keeps must
// overlap, each of them: those of a spatial function of the geometry and
// a literal, alone or under a top-level AND (every spatial function but
// S_DISJOINT implies the two geometries meet), and of S_DWITHIN. None when
// e implies none.
func SpatialBounds(e cql2.Expr, c *Collection) []Box {
	switch e := e.(type) {
	case cql2.Spatial:
		if e.Op == "s_disjoint" {
			// Every other predicate implies the geometries meet.
			return nil
		}
		b := literalBounds(e.A, e.B, c)
		if b == nil {
			return nil
		}
		return []Box{{b.Min(0), b.Min(1), b.Max(0), b.Max(1)}}
	case cql2.Distance:
		if e.Op != "s_dwithin" {
			return nil
		}
		return distanceBounds(e, c)
	case cql2.Logical:
		if e.Op != "and" {
			return nil
		}
		var out []Box
		for _, a := range e.Args {
			out = append(out, SpatialBounds(a, c)...)
		}
		return out
	}
	return nil
}

func isGeometryProperty(e cql2.Expr, c *Collection) bool {
	p, ok := e.(cql2.Property)
	return ok && c.IsGeometry(p.Name)
}

// distanceBounds is the box in CRS84 that features within e.Metres of
// e's point literal must overlap: the point's box grown by the metres in
// degrees (a degree of latitude is at least 110,574 m; of longitude,
// 111,320 m times the cosine of the latitude farthest from the equator
// the box reaches), with 1% to spare. None when the box would reach a
// pole or across the antimeridian.
func distanceBounds(e cql2.Distance, c *Collection) []Box {
	b := literalBounds(e.A, e.B, c)
	if b == nil {
		return nil
	}
	dLat := e.Metres / 110574 * 1.01
	south, north := b.Min(1)-dLat, b.Max(1)+dLat
	if south <= -89 || north >= 89 {
		return nil
	}
	dLon := e.Metres / (111320 * math.Cos(math.Max(math.Abs(south), math.Abs(north))*math.Pi/180)) * 1.01
	west, east := b.Min(0)-dLon, b.Max(0)+dLon
	if west < -180 || east > 180 {
		return nil
	}
	return []Box{{west, south, east, north}}
}

// literalBounds is the box of the literal geometry a predicate of a and
// b compares the collection's geometry with; nil when it compares other
// things or the literal is empty.
func literalBounds(a, b cql2.Expr, c *Collection) *geom.Bounds {
	var lit cql2.Expr
	switch {
	case isGeometryProperty(a, c):
		lit = b
	case isGeometryProperty(b, c):
		lit = a
	default:
		return nil
	}
	l, ok := lit.(cql2.Literal)
	if !ok {
		return nil
	}
	g, ok := l.Value.(geom.T)
	if !ok {
		return nil
	}
	// Bounds, not Extend: a GeometryCollection has no flat coordinates
	// of its own.
	bounds := g.Bounds()
	// Past ±180: an outline across the antimeridian, with its copy; the
	// stored boxes keep -180..180.
	if bounds.IsEmpty() || bounds.Min(0) < -180 || bounds.Max(0) > 180 {
		return nil
	}
	return bounds
}
