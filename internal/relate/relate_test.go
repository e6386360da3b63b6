package relate

import (
	"testing"

	"github.com/twpayne/go-geom"
)

func square(x0, y0, x1, y1 float64) *geom.Polygon {
	return geom.NewPolygonFlat(geom.XY, []float64{x0, y0, x1, y0, x1, y1, x0, y1, x0, y0}, []int{10})
}

// The DE-9IM predicates of OGC Simple Features (06-103r4, 6.1.15.3), on
// shapes whose answer the definitions fix.
func TestRelate(t *testing.T) {
	if !Available() {
		t.Fatal("GDAL was built without GEOS")
	}
	big, small, beside := square(0, 0, 10, 10), square(2, 2, 4, 4), square(10, 0, 20, 10)
	half := square(5, 5, 15, 15)
	line := geom.NewLineStringFlat(geom.XY, []float64{-5, 5, 15, 5})
	corner := geom.NewPointFlat(geom.XY, []float64{10, 10})
	for _, tc := range []struct {
		op   string
		a, b geom.T
		want bool
	}{
		{"s_within", small, big, true}, {"s_within", big, small, false},
		{"s_contains", big, small, true}, {"s_contains", small, big, false},
		// "Touches: the interiors do not intersect" but the boundaries do.
		{"s_touches", big, beside, true}, {"s_touches", big, half, false}, {"s_touches", corner, big, true},
		{"s_overlaps", big, half, true}, {"s_overlaps", big, small, false},
		{"s_crosses", line, big, true}, {"s_crosses", line, square(30, 30, 40, 40), false},
		{"s_equals", big, square(0, 0, 10, 10), true}, {"s_equals", big, half, false},
		// Equal point sets, though the rings start at other corners and run
		// the other way, and one has an extra vertex on an edge.
		{"s_equals", big, geom.NewPolygonFlat(geom.XY, []float64{10, 10, 0, 10, 0, 0, 5, 0, 10, 0, 10, 10}, []int{12}), true},
		{"s_disjoint", small, beside, true}, {"s_disjoint", big, beside, false},
		{"s_intersects", big, beside, true}, {"s_intersects", small, beside, false},
	} {
		got, err := Relate(tc.op, tc.a, tc.b)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v %v, want %v", tc.op, got, err, tc.want)
		}
	}
	if _, err := Relate("s_near", big, small); err == nil {
		t.Error("an unknown predicate is accepted")
	}
}
