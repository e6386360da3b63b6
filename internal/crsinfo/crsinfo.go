// Package crsinfo answers what PROJ knows about an EPSG coordinate
// reference system beyond its definition: whether it draws maps at all
// (geographic or projected, not vertical, geocentric or engineering) and
// the area of the Earth it is meant for. The doors that take a CRS from a
// caller (OGC API Features, WFS, exports) refuse one that cannot serve
// them with a reason, before any work (issue 24).
package crsinfo

import "github.com/geopub/geopub/internal/gdal"

// Kind says whether PROJ knows a code and whether it draws maps.
type Kind int

const (
	Unknown    Kind = iota // PROJ does not know the code
	Horizontal             // geographic or projected
	Other                  // vertical, geocentric, engineering...
)

// KindOf classifies EPSG code.
func KindOf(code int) Kind {
	switch horizontal, known := gdal.ClassifyEPSG(code); {
	case !known:
		return Unknown
	case horizontal:
		return Horizontal
	}
	return Other
}

// Area is an area of use in degrees: West may exceed East when it crosses
// the antimeridian.
type Area struct{ West, South, East, North float64 }

// AreaOf is the area EPSG code is meant for; ok is false when PROJ has
// none for it.
func AreaOf(code int) (a Area, ok bool) {
	w, s, e, n, ok := gdal.AreaOfUse(code)
	if !ok {
		return Area{}, false
	}
	return Area{w, s, e, n}, true
}

// Meets reports whether the area meets the lon/lat box [minx, miny, maxx,
// maxy] (minx <= maxx).
func (a Area) Meets(b [4]float64) bool {
	if b[3] < a.South || b[1] > a.North {
		return false
	}
	if a.West <= a.East {
		return b[2] >= a.West && b[0] <= a.East
	}
	// Across the antimeridian: west of 180 or east of -180.
	return b[2] >= a.West || b[0] <= a.East
}
