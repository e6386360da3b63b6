package cql2_test

import (
	"testing"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
)

// CQL2 (OGC 21-065, "Case-insensitive Comparison"): CASEI(...) makes a
// comparison or LIKE ignore case; values that are not strings pass
// through.
func TestCaseI(t *testing.T) {
	f := feature(map[string]any{"name": "Lambton Quay", "city": "STRASSE", "rank": 3.0}, nil)
	name := cql2.CaseI{Arg: cql2.Property{Name: "name"}}
	lit := func(s any) cql2.Expr { return cql2.CaseI{Arg: cql2.Literal{Value: s}} }
	for _, tc := range []struct {
		e    cql2.Expr
		want bool
	}{
		{cql2.Compare{Op: "=", Left: name, Right: lit("lambton QUAY")}, true},
		{cql2.Compare{Op: "=", Left: cql2.Property{Name: "name"}, Right: cql2.Literal{Value: "lambton QUAY"}}, false},
		{cql2.Compare{Op: "<>", Left: name, Right: lit("LAMBTON quay")}, false},
		{cql2.Compare{Op: "=", Left: cql2.CaseI{Arg: cql2.Property{Name: "city"}}, Right: lit("strasse")}, true},
		{cql2.Like{Arg: name, Pattern: lit("LAMB%q_ay")}, true},
		{cql2.Like{Arg: cql2.Property{Name: "name"}, Pattern: cql2.Literal{Value: "LAMB%"}}, false},
		{cql2.Compare{Op: "=", Left: cql2.CaseI{Arg: cql2.Property{Name: "rank"}}, Right: lit(3.0)}, true},
	} {
		if got := cql2.Match(tc.e, f); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.e, got, tc.want)
		}
	}
	if got := cql2.Properties(cql2.Like{Arg: name, Pattern: lit("x")}); len(got) != 1 || got[0] != "name" {
		t.Errorf("properties under CASEI: %v", got)
	}
}

// The DE-9IM predicates beside S_INTERSECTS, the feature's geometry first.
func TestSpatialPredicates(t *testing.T) {
	sq := func(x0, y0, x1, y1 float64) *geom.Polygon {
		return geom.NewPolygonFlat(geom.XY, []float64{x0, y0, x1, y0, x1, y1, x0, y1, x0, y0}, []int{10})
	}
	f := feature(nil, sq(2, 2, 4, 4))
	for _, tc := range []struct {
		op   string
		b    geom.T
		want bool
	}{
		{"s_within", sq(0, 0, 10, 10), true}, {"s_contains", sq(0, 0, 10, 10), false},
		{"s_contains", sq(2.5, 2.5, 3, 3), true}, {"s_touches", sq(4, 0, 6, 6), true},
		{"s_overlaps", sq(3, 3, 6, 6), true}, {"s_equals", sq(2, 2, 4, 4), true},
		{"s_disjoint", sq(5, 5, 6, 6), true}, {"s_crosses", geom.NewLineStringFlat(geom.XY, []float64{0, 3, 10, 3}), true},
		{"s_crosses", geom.NewLineStringFlat(geom.XY, []float64{0, 9, 10, 9}), false},
	} {
		e := cql2.Spatial{Op: tc.op, A: cql2.Property{Name: "geometry"}, B: cql2.Literal{Value: tc.b}}
		if got := cql2.Match(e, f); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.op, got, tc.want)
		}
	}
}
