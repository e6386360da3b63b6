package vectortiles

import (
	"testing"

	"github.com/paulmach/orb"
	"github.com/twpayne/go-geom"
)

func TestPolygonWithHole(t *testing.T) {
	tile := Tile{Z: 13, X: 8073, Y: 5129}
	x, y, w := 174.79, -41.29, 0.003
	d := w / 4
	flat := []float64{x, y, x + w, y, x + w, y + w, x, y + w, x, y,
		x + d, y + d, x + d, y + 3*d, x + 3*d, y + 3*d, x + 3*d, y + d, x + d, y + d}
	g := toTile(geom.NewPolygonFlat(geom.XY, flat, []int{10, 20}), tile.project())
	p, ok := g.(orb.Polygon)
	if !ok || len(p) != 2 {
		t.Fatalf("%#v", g)
	}
	if area(p[0][:len(p[0])-1]) <= 0 || area(p[1][:len(p[1])-1]) >= 0 {
		t.Fatalf("rings %v", p)
	}
}

// Of a collection, the parts of the highest dimension are kept.
func TestCollection(t *testing.T) {
	tile := Tile{Z: 13, X: 8073, Y: 5129}
	x, y, w := 174.79, -41.29, 0.003
	poly := geom.NewPolygonFlat(geom.XY, []float64{x, y, x + w, y, x + w, y + w, x, y + w, x, y}, []int{10})
	pt := geom.NewPointFlat(geom.XYZ, []float64{x, y, 5})
	inner := geom.NewGeometryCollection()
	_ = inner.Push(poly)
	c := geom.NewGeometryCollection()
	_ = c.Push(pt, inner, geom.NewLineStringFlat(geom.XY, []float64{x, y, x + w, y + w}))
	if g := toTile(c, tile.project()); g == nil || g.Dimensions() != 2 {
		t.Fatalf("%#v", g)
	}
	only := geom.NewGeometryCollection()
	_ = only.Push(pt, pt)
	if g, ok := toTile(only, tile.project()).(orb.MultiPoint); !ok || len(g) != 2 {
		t.Fatalf("%#v", toTile(only, tile.project()))
	}
	if toTile(geom.NewGeometryCollection(), tile.project()) != nil {
		t.Fatal("empty collection")
	}
}
