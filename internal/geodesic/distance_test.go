package geodesic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/twpayne/go-geom"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %g", name, got, want, tol)
	}
}

func TestSpheroidDistance(t *testing.T) {
	// Vincenty's own test line: Flinders Peak to Buninyong, 54 972.271 m.
	near(t, "Flinders Peak–Buninyong", SpheroidDistance(Point{144.42486788889, -37.95103341667}, Point{143.92649552778, -37.65282113889}), 54972.271, 0.001)
	// One degree of latitude at the equator, and of longitude along it.
	near(t, "1° latitude at the equator", SpheroidDistance(Point{0, 0}, Point{0, 1}), 110574.389, 0.01)
	near(t, "1° longitude on the equator", SpheroidDistance(Point{0, 0}, Point{1, 0}), 111319.491, 0.01)
	near(t, "same point", SpheroidDistance(Point{174.7, -41.3}, Point{174.7, -41.3}), 0, 0)
	// Across the antimeridian.
	near(t, "antimeridian", SpheroidDistance(Point{179.99, 0}, Point{-179.99, 0}), 2226.39, 0.01)
	// Nearly antipodal points fall back to the sphere rather than fail.
	if d := SpheroidDistance(Point{0, 0}, Point{179.9, 0.1}); d < 19e6 || d > 20.1e6 {
		t.Errorf("near-antipodal %f", d)
	}
}

func TestNearestOnEdge(t *testing.T) {
	q := NearestOnEdge(Point{0.5, 1}, Point{0, 0}, Point{1, 0})
	near(t, "lon", q.Lon, 0.5, 1e-9)
	near(t, "lat", q.Lat, 0, 1e-9)
	// Beyond an end: the end point.
	if q := NearestOnEdge(Point{2, 1}, Point{0, 0}, Point{1, 0}); q != (Point{1, 0}) {
		t.Errorf("beyond b: %v", q)
	}
	if q := NearestOnEdge(Point{-3, -1}, Point{0, 0}, Point{1, 0}); q != (Point{0, 0}) {
		t.Errorf("beyond a: %v", q)
	}
	// A long east-west edge bulges poleward on the sphere: its midpoint at
	// 60°N lies north of the parallel.
	if q := NearestOnEdge(Point{0, 70}, Point{-40, 60}, Point{40, 60}); q.Lat < 63 {
		t.Errorf("great-circle midpoint %v", q)
	}
}

func TestDistance(t *testing.T) {
	square := geom.NewPolygonFlat(geom.XY, []float64{0, 0, 1, 0, 1, 1, 0, 1, 0, 0}, []int{10})
	holed := geom.NewPolygonFlat(geom.XY, []float64{0, 0, 4, 0, 4, 4, 0, 4, 0, 0, 1, 1, 3, 1, 3, 3, 1, 3, 1, 1}, []int{10, 20})
	line := geom.NewLineStringFlat(geom.XY, []float64{0, 0, 1, 0, 1, 1})
	for _, c := range []struct {
		name string
		p    Point
		g    geom.T
		want float64
	}{
		{"InsidePolygon", Point{0.5, 0.5}, square, 0},
		{"OutsidePolygon", Point{0.5, -1}, square, 110574.389},
		// In the hole: PostGIS picks the nearest edge on the sphere (a
		// meridian edge, 1° of longitude at 2°N) and measures it on the
		// spheroid, where the parallel edge would have been nearer.
		{"InHole", Point{2, 2}, holed, 111252.12},
		{"InPolygonOutOfHole", Point{0.5, 2}, holed, 0},
		{"Line", Point{0.5, 1}, line, 55651.32},
		{"LineEnd", Point{1, 2}, line, 110574.389 * 1.0001},
		{"Point", Point{0, 0}, geom.NewPointFlat(geom.XY, []float64{0, 1}), 110574.389},
		{"MultiPoint", Point{0, 0}, geom.NewMultiPointFlat(geom.XY, []float64{5, 5, 0, 1}), 110574.389},
		{"MultiPolygon", Point{10.5, 0.5}, geom.NewMultiPolygonFlat(geom.XY, []float64{0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 10, 0, 11, 0, 11, 1, 10, 1, 10, 0}, [][]int{{10}, {20}}), 0},
		{"ThreeDimensions", Point{0, 0}, geom.NewPointFlat(geom.XYZ, []float64{0, 1, 500}), 110574.389},
	} {
		t.Run(c.name, func(t *testing.T) {
			near(t, c.name, Distance(c.p, c.g), c.want, c.want*0.001+0.001)
		})
	}
}

// The distance from Wellington's Beehive to a point 1 km east along the
// parallel, on the spheroid.
func ExampleSpheroidDistance() {
	beehive := Point{Lon: 174.7762, Lat: -41.2784}
	east := Point{Lon: 174.7881686, Lat: -41.2784}
	fmt.Printf("%.0f m\n", SpheroidDistance(beehive, east))
	// Output: 1003 m
}

// The lower bound never exceeds the spheroid distance, at any latitude or
// direction, near and far, and is tight: within 1.1 % of it (the
// spheroid's least over its greatest radius of curvature).
func TestLowerBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200000 {
		p := Point{Lon: rng.Float64()*360 - 180, Lat: rng.Float64()*180 - 90}
		if i%4 == 0 {
			p.Lat = rng.Float64()*2 - 1 // the equator, where the meridian curves most
		}
		scale := []float64{1e-5, 1e-3, 0.01, 1, 30}[i%5] // degrees: metres to thousands of km
		q := Point{Lon: p.Lon + (rng.Float64()*2-1)*scale, Lat: math.Max(-90, math.Min(90, p.Lat+(rng.Float64()*2-1)*scale))}
		d := SpheroidDistance(p, q)
		lb := NewLowerBound(p).To(q)
		if lb > d {
			t.Fatalf("bound %.6f m > distance %.6f m from %v to %v", lb, d, p, q)
		}
		if d > 1 && d < 1e6 && lb < d*0.989 {
			t.Fatalf("bound %.3f m is loose for distance %.3f m from %v to %v", lb, d, p, q)
		}
	}
}
