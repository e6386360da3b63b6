// Package geodesic measures distances on the Earth (point queries, WFS
// DWithin and Beyond), in metres, the way PostGIS measures geography: the
// nearest point of a line or polygon edge is found on the sphere
// (great-circle edges), and the distance to it is measured on the WGS 84
// spheroid. Coordinates are longitude, latitude in decimal degrees
// (EPSG:4326), in that order.
package geodesic

import "math"

// WGS 84.
const (
	semiMajor  = 6378137.0
	flattening = 1 / 298.257223563
	semiMinor  = semiMajor * (1 - flattening)
	// MeanRadius is the sphere PostGIS uses for its spherical maths.
	MeanRadius = 6371008.7714150598
)

const rad = math.Pi / 180

// Point is a longitude, latitude pair in degrees.
type Point struct{ Lon, Lat float64 }

// SpheroidDistance returns the geodesic distance in metres between a and b
// on the WGS 84 spheroid (Vincenty's inverse formula, sub-millimetre for
// the distances point queries measure). For nearly antipodal points,
// where the iteration does not converge, it falls back to the sphere.
func SpheroidDistance(a, b Point) float64 {
	if a == b {
		return 0
	}
	L := (b.Lon - a.Lon) * rad
	U1 := math.Atan((1 - flattening) * math.Tan(a.Lat*rad))
	U2 := math.Atan((1 - flattening) * math.Tan(b.Lat*rad))
	sinU1, cosU1 := math.Sincos(U1)
	sinU2, cosU2 := math.Sincos(U2)
	lambda := L
	for range 200 {
		sinL, cosL := math.Sincos(lambda)
		sinSigma := math.Hypot(cosU2*sinL, cosU1*sinU2-sinU1*cosU2*cosL)
		if sinSigma == 0 {
			return 0
		}
		cosSigma := sinU1*sinU2 + cosU1*cosU2*cosL
		sigma := math.Atan2(sinSigma, cosSigma)
		sinAlpha := cosU1 * cosU2 * sinL / sinSigma
		cos2Alpha := 1 - sinAlpha*sinAlpha
		cos2SigmaM := 0.0
		if cos2Alpha != 0 {
			cos2SigmaM = cosSigma - 2*sinU1*sinU2/cos2Alpha
		}
		C := flattening / 16 * cos2Alpha * (4 + flattening*(4-3*cos2Alpha))
		prev := lambda
		lambda = L + (1-C)*flattening*sinAlpha*(sigma+C*sinSigma*(cos2SigmaM+C*cosSigma*(-1+2*cos2SigmaM*cos2SigmaM)))
		if math.Abs(lambda-prev) < 1e-12 {
			u2 := cos2Alpha * (semiMajor*semiMajor - semiMinor*semiMinor) / (semiMinor * semiMinor)
			A := 1 + u2/16384*(4096+u2*(-768+u2*(320-175*u2)))
			B := u2 / 1024 * (256 + u2*(-128+u2*(74-47*u2)))
			deltaSigma := B * sinSigma * (cos2SigmaM + B/4*(cosSigma*(-1+2*cos2SigmaM*cos2SigmaM)-
				B/6*cos2SigmaM*(-3+4*sinSigma*sinSigma)*(-3+4*cos2SigmaM*cos2SigmaM)))
			return semiMinor * A * (sigma - deltaSigma)
		}
	}
	return SphereDistance(a, b)
}

// SphereDistance is the great-circle distance in metres on PostGIS's mean
// sphere.
func SphereDistance(a, b Point) float64 {
	return angle(unit(a), unit(b)) * MeanRadius
}

// vec is a point on the unit sphere.
type vec struct{ x, y, z float64 }

func unit(p Point) vec {
	sinLat, cosLat := math.Sincos(p.Lat * rad)
	sinLon, cosLon := math.Sincos(p.Lon * rad)
	return vec{cosLat * cosLon, cosLat * sinLon, sinLat}
}

func (v vec) point() Point {
	return Point{Lon: math.Atan2(v.y, v.x) / rad, Lat: math.Atan2(v.z, math.Hypot(v.x, v.y)) / rad}
}

func dot(a, b vec) float64 { return a.x*b.x + a.y*b.y + a.z*b.z }

func cross(a, b vec) vec {
	return vec{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x}
}

func (v vec) norm() float64 { return math.Sqrt(dot(v, v)) }

func (v vec) scale(s float64) vec { return vec{v.x * s, v.y * s, v.z * s} }

// angle between unit vectors, stable for small and large angles.
func angle(a, b vec) float64 { return math.Atan2(cross(a, b).norm(), dot(a, b)) }

// NearestOnEdge returns the point of the great-circle edge ab nearest to
// p, found on the sphere.
func NearestOnEdge(p, a, b Point) Point {
	va, vb, vp := unit(a), unit(b), unit(p)
	n := cross(va, vb)
	nn := n.norm()
	if nn < 1e-15 { // a and b coincide (or are antipodal)
		return a
	}
	n = n.scale(1 / nn)
	// Project p onto the edge's great circle.
	proj := vec{vp.x - dot(vp, n)*n.x, vp.y - dot(vp, n)*n.y, vp.z - dot(vp, n)*n.z}
	if l := proj.norm(); l > 1e-15 {
		proj = proj.scale(1 / l)
		// Inside the arc when it lies between a and b.
		if dot(cross(va, proj), n) >= 0 && dot(cross(proj, vb), n) >= 0 {
			return proj.point()
		}
	}
	if angle(vp, va) <= angle(vp, vb) {
		return a
	}
	return b
}
