package geodesic

import "math"

// boundScale is the least ratio of a length on the WGS 84 spheroid to the
// same path's length (in latitude and longitude) on the mean sphere: the
// spheroid's least radius of curvature, a(1−e²) (along the meridian at the
// equator), over MeanRadius, about 0.99442. A millionth less covers
// rounding and Vincenty's sub-millimetre error.
var boundScale = semiMajor * (1 - flattening*(2-flattening)) / MeanRadius * (1 - 1e-6)

// LowerBound gives cheap lower bounds of SpheroidDistance from one point,
// for ruling out candidates before measuring them: the geodesic between
// two points maps onto a path on the mean sphere at least as long as their
// great circle, which is at least as long as their chord, so
//
//	SpheroidDistance(p, q) ≥ boundScale · MeanRadius · |unit(p) − unit(q)|.
//
// It costs two Sincos and a square root, a fraction of SpheroidDistance.
type LowerBound struct{ u vec }

// NewLowerBound prepares the bounds of distances from p.
func NewLowerBound(p Point) LowerBound { return LowerBound{u: unit(p)} }

// To returns a lower bound, in metres, of the spheroid distance to q.
func (b LowerBound) To(q Point) float64 {
	v := unit(q)
	dx, dy, dz := b.u.x-v.x, b.u.y-v.y, b.u.z-v.z
	return boundScale * MeanRadius * math.Sqrt(dx*dx+dy*dy+dz*dz)
}
