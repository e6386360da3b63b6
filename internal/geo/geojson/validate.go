// Package geojson checks GeoJSON geometries (RFC 7946) given as decoded
// JSON: the type, the nesting of the coordinates, longitude and latitude
// ranges, and closed polygon rings.
package geojson

import (
	"encoding/json"
	"fmt"
	"math"
)

// Validate reports what is wrong with a GeoJSON geometry in EPSG:4326,
// or nil. GeometryCollection is refused: a named place is one geometry.
func Validate(g map[string]any) error {
	if g == nil {
		return fmt.Errorf("a GeoJSON geometry object is required")
	}
	typ, _ := g["type"].(string)
	switch typ {
	case "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon":
	default:
		return fmt.Errorf("unsupported geometry type %q: use Point, MultiPoint, LineString, MultiLineString, Polygon or MultiPolygon", typ)
	}
	coords, ok := g["coordinates"]
	if !ok {
		return fmt.Errorf("the geometry has no coordinates")
	}
	var err error
	switch typ {
	case "Point":
		err = position(coords)
	case "MultiPoint":
		err = each(coords, 1, position)
	case "LineString":
		err = line(coords)
	case "MultiLineString":
		err = each(coords, 1, line)
	case "Polygon":
		err = polygon(coords)
	case "MultiPolygon":
		err = each(coords, 1, polygon)
	}
	if err != nil {
		return fmt.Errorf("invalid %s: %w", typ, err)
	}
	return nil
}

func list(v any) ([]any, bool) {
	l, ok := v.([]any)
	return l, ok
}

// each checks that v is an array of at least min items, each valid.
func each(v any, min int, check func(any) error) error {
	l, ok := list(v)
	if !ok {
		return fmt.Errorf("coordinates must be an array")
	}
	if len(l) < min {
		return fmt.Errorf("need at least %d coordinate entries, got %d", min, len(l))
	}
	for _, item := range l {
		if err := check(item); err != nil {
			return err
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	}
	return 0, false
}

// position is [longitude, latitude] with an optional elevation.
func position(v any) error {
	l, ok := list(v)
	if !ok || len(l) < 2 || len(l) > 3 {
		return fmt.Errorf("a position is an array of 2 or 3 numbers")
	}
	for _, c := range l {
		if _, ok := number(c); !ok {
			return fmt.Errorf("a position is an array of 2 or 3 numbers")
		}
	}
	lon, _ := number(l[0])
	lat, _ := number(l[1])
	if lon < -180 || lon > 180 || lat < -90 || lat > 90 {
		return fmt.Errorf("position [%g, %g] is outside longitude -180..180, latitude -90..90", lon, lat)
	}
	return nil
}

func line(v any) error { return each(v, 2, position) }

func ring(v any) error {
	if err := each(v, 4, position); err != nil {
		return fmt.Errorf("a ring needs at least 4 positions: %w", err)
	}
	l, _ := list(v)
	first, _ := list(l[0])
	last, _ := list(l[len(l)-1])
	if len(first) != len(last) {
		return fmt.Errorf("a ring must end where it starts")
	}
	for i := range first {
		a, _ := number(first[i])
		b, _ := number(last[i])
		if a != b {
			return fmt.Errorf("a ring must end where it starts")
		}
	}
	return nil
}

func polygon(v any) error { return each(v, 1, ring) }
