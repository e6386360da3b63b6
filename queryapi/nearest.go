package queryapi

import (
	"cmp"
	"math"
	"slices"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/geodesic"
)

// Hit is a feature found near a query point.
type Hit struct {
	// Item is the feature's position in its index.
	Item int
	// Distance is in metres, zero inside polygons.
	Distance float64
}

// Metres per degree bounds on WGS 84: a degree of latitude is at least
// minLatDegree long; a degree of longitude at latitude φ is at least
// minLonDegree·cos φ.
const (
	minLatDegree = 110574.0
	minLonDegree = 111319.0
)

// Nearest returns up to max features of ix within radius metres of p,
// nearest first (ties by feature id), with their distances. Distances are
// PostGIS geography distances (see package geo).
//
// Where the layer is dense enough that the radius would hold many more
// than max features, it first searches a smaller radius, sized to the
// layer's average density to hold about twice max, and widens it (×2)
// until max features are found within it or it reaches radius: when max
// features lie within r, no feature beyond r can be among the nearest.
func Nearest(ix *featureindex.Index, p geodesic.Point, radius float64, max int) []Hit {
	bound := geodesic.NewLowerBound(p)
	for r := min(radius, startRadius(ix, max)); ; r = min(radius, 2*r) {
		hits := nearestWithin(ix, p, bound, r, max)
		if len(hits) == max || r >= radius {
			return hits
		}
	}
}

// startRadius is the radius that holds about 2·max features where the
// layer's features are spread evenly over its bounds.
func startRadius(ix *featureindex.Index, max int) float64 {
	minx, miny, maxx, maxy := ix.Bounds()
	area := (maxx - minx) * minLonDegree * math.Cos((miny+maxy)/2*math.Pi/180) * (maxy - miny) * minLatDegree
	if ix.Len() == 0 || !(area > 0) {
		return math.Inf(1)
	}
	return math.Max(1, math.Sqrt(2*float64(max)*area/(math.Pi*float64(ix.Len()))))
}

// nearestWithin is Nearest for one search radius. The exact distance
// (Vincenty's, a few hundred nanoseconds) is measured only where it can
// matter: every candidate in the search box gets a cheap lower bound first
// (geodesic.LowerBound for points, zero for other geometries), and candidates
// are measured nearest bound first until the next bound exceeds the
// max-th distance found.
func nearestWithin(ix *featureindex.Index, p geodesic.Point, bound geodesic.LowerBound, radius float64, max int) []Hit {
	cands := make([]candidate, 0, 64)
	boxes, n := searchBoxes(p, radius)
	for _, box := range boxes[:n] {
		ix.Search(box[0], box[1], box[2], box[3], func(i int) bool {
			lb := 0.0
			if ix.IsPoint(i) {
				x, y, _, _ := ix.Box(i)
				lb = bound.To(geodesic.Point{Lon: x, Lat: y})
			}
			if lb <= radius {
				cands = append(cands, candidate{item: i, bound: lb})
			}
			return true
		})
	}
	if len(cands) > max {
		slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.bound, b.bound) })
	}
	hits := make([]Hit, 0, min(max, len(cands))+1)
	for _, c := range cands {
		if len(hits) == max && c.bound > hits[max-1].Distance {
			break // no candidate left can be nearer than the max-th hit
		}
		d := distanceTo(ix, c.item, p)
		if d > radius {
			continue
		}
		hits = insertHit(ix, hits, Hit{Item: c.item, Distance: d}, max)
	}
	return hits
}

// candidate is an item in the search box with a lower bound of its
// distance.
type candidate struct {
	item  int
	bound float64
}

// insertHit adds h to hits, which are in order (distance, then feature
// id), keeping at most max.
func insertHit(ix *featureindex.Index, hits []Hit, h Hit, max int) []Hit {
	at, _ := slices.BinarySearchFunc(hits, h, func(a, b Hit) int {
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		return cmp.Compare(ix.FID(a.Item), ix.FID(b.Item))
	})
	if at == max {
		return hits
	}
	hits = slices.Insert(hits, at, h)
	if len(hits) > max {
		hits = hits[:max]
	}
	return hits
}

// distanceTo measures the distance from p to item i.
func distanceTo(ix *featureindex.Index, i int, p geodesic.Point) float64 {
	if ix.IsPoint(i) {
		x, y, _, _ := ix.Box(i)
		return geodesic.SpheroidDistance(p, geodesic.Point{Lon: x, Lat: y})
	}
	g, err := wkb.Unmarshal(ix.WKB(i))
	if err != nil {
		return math.Inf(1)
	}
	return geodesic.Distance(p, g)
}

// geometry decodes item i's geometry.
func geometry(ix *featureindex.Index, i int) (geom.T, error) {
	if ix.IsPoint(i) {
		x, y, _, _ := ix.Box(i)
		return geom.NewPointFlat(geom.XY, []float64{x, y}), nil
	}
	return wkb.Unmarshal(ix.WKB(i))
}

// searchBoxes returns the longitude, latitude boxes that hold every point
// within radius metres of p: one box, or two when it crosses the
// antimeridian (n says how many).
func searchBoxes(p geodesic.Point, radius float64) (boxes [2][4]float64, n int) {
	// A little slack covers rounding; the exact test is the distance.
	r := radius*1.001 + 0.01
	dLat := r / minLatDegree
	minLat, maxLat := math.Max(p.Lat-dLat, -90), math.Min(p.Lat+dLat, 90)
	farLat := math.Max(math.Abs(minLat), math.Abs(maxLat))
	cos := math.Cos(farLat * math.Pi / 180)
	if farLat >= 89.99 || r/(minLonDegree*cos) >= 180 {
		return [2][4]float64{{-180, minLat, 180, maxLat}}, 1
	}
	dLon := r / (minLonDegree * cos)
	west, east := p.Lon-dLon, p.Lon+dLon
	switch {
	case west < -180:
		return [2][4]float64{{-180, minLat, east, maxLat}, {west + 360, minLat, 180, maxLat}}, 2
	case east > 180:
		return [2][4]float64{{west, minLat, 180, maxLat}, {-180, minLat, east - 360, maxLat}}, 2
	}
	return [2][4]float64{{west, minLat, east, maxLat}}, 1
}
