package geoservices

import (
	"testing"

	"github.com/twpayne/go-geom"
)

func TestParseSR(t *testing.T) {
	for s, want := range map[string]int{"4326": 4326, "102100": 3857, "900913": 3857, `{"wkid":102100,"latestWkid":3857}`: 3857,
		`{"wkid":2193}`: 2193, " 3857 ": 3857} {
		sr, err := ParseSR(s)
		if err != nil || sr.WKID != want {
			t.Errorf("%q: %v %v, want %d", s, sr, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1", "0", "999999", "5773", `{"wkt":"GEOGCS"}`, `{"wkid":"x"}`, "{"} {
		if _, err := ParseSR(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestParseGeometry(t *testing.T) {
	g, sr, err := ParseGeometry(`{"xmin":1,"ymin":2,"xmax":3,"ymax":4,"spatialReference":{"wkid":102100}}`, "")
	if err != nil || sr.WKID != 3857 || !isRectangle(g.(*geom.Polygon)) {
		t.Fatalf("envelope: %v %v %v", g, sr, err)
	}
	// Esri rings: clockwise outer, counterclockwise hole, a second outer.
	g, _, err = ParseGeometry(`{"rings":[[[0,0],[0,10],[10,10],[10,0],[0,0]],[[2,2],[4,2],[4,4],[2,4],[2,2]],[[20,0],[20,1],[21,1],[21,0],[20,0]]]}`, "esriGeometryPolygon")
	mp, ok := g.(*geom.MultiPolygon)
	if err != nil || !ok || mp.NumPolygons() != 2 || mp.Polygon(0).NumLinearRings() != 2 {
		t.Fatalf("rings: %#v %v", g, err)
	}
	// And back: the outer ring clockwise, the hole counterclockwise.
	rings := EsriGeometry(mp.Polygon(0))["rings"].([][][2]float64)
	flat := func(r [][2]float64) []float64 {
		var out []float64
		for _, p := range r {
			out = append(out, p[0], p[1])
		}
		return out
	}
	if signedArea(flat(rings[0]), 2) >= 0 || signedArea(flat(rings[1]), 2) <= 0 {
		t.Errorf("ring orientation: %v", rings)
	}
	for _, tc := range []struct{ s, typ string }{{"1,2,3", ""}, {"3,3,1,1", ""}, {`{"x":1}`, "esriGeometryPoint"},
		{`{"paths":[[[1,2]]]}`, "esriGeometryPolyline"}, {`{"rings":[]}`, "esriGeometryPolygon"}, {"1,2", "esriGeometryPolygon"},
		{`{"points":[[1]]}`, "esriGeometryMultipoint"}, {`{"x":1,"y":2}`, "esriGeometryBag"}, {"Infinity,0,1,1", ""}} {
		if _, _, err := ParseGeometry(tc.s, tc.typ); err == nil {
			t.Errorf("%s %s accepted", tc.s, tc.typ)
		}
	}
}

func TestPBFGeometryDeltas(t *testing.T) {
	// Two paths: each starts whole, then differences, upper-left origin.
	g := geom.NewMultiLineStringFlat(geom.XY, []float64{0, 0, 1, 1, 5, 5, 6, 4}, []int{4, 8})
	b, err := pbfGeometry(g, 1, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	// geometryType 2; lengths [2 2]; coords zigzag of (0,10),(1,-1),(5,5),(1,1).
	want := []byte{0x08, 2, 0x12, 2, 2, 2, 0x1a, 8, 0, 20, 2, 1, 10, 10, 2, 2}
	if string(b) != string(want) {
		t.Errorf("% x, want % x", b, want)
	}
}
