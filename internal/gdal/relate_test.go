package gdal_test

import (
	"encoding/binary"
	"testing"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/gdal"
)

func squareWKB(t *testing.T, x0, y0, x1, y1 float64) []byte {
	t.Helper()
	b, err := wkb.Marshal(geom.NewPolygonFlat(geom.XY, []float64{x0, y0, x1, y0, x1, y1, x0, y1, x0, y0}, []int{10}), binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRelate(t *testing.T) {
	if !gdal.HaveGEOS() {
		t.Fatal("GDAL was built without GEOS")
	}
	big, small, beside := squareWKB(t, 0, 0, 10, 10), squareWKB(t, 2, 2, 4, 4), squareWKB(t, 10, 0, 20, 10)
	// Equal point sets, the ring starting elsewhere and running the other
	// way: DE-9IM equality, not vertex by vertex.
	turned := squareWKB(t, 10, 10, 0, 0)
	for _, c := range []struct {
		p    gdal.Predicate
		a, b []byte
		want bool
	}{
		{gdal.Within, small, big, true}, {gdal.Within, big, small, false},
		{gdal.Contains, big, small, true}, {gdal.Touches, big, beside, true},
		{gdal.Disjoint, small, beside, true}, {gdal.Intersects, small, beside, false},
		{gdal.Equals, big, turned, true}, {gdal.Equals, big, small, false},
	} {
		holds, ok := gdal.Relate(c.p, c.a, c.b)
		if !ok || holds != c.want {
			t.Errorf("Relate(%d) = %v, %v; want %v", c.p, holds, ok, c.want)
		}
	}
	if _, ok := gdal.Relate(gdal.Within, []byte{1, 2, 3}, big); ok {
		t.Error("Relate read a broken WKB")
	}
}
