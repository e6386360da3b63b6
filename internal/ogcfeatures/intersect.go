package ogcfeatures

import (
	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
)

// Box is [minx, miny, maxx, maxy] in CRS84, minx <= maxx.
type Box [4]float64

// covers reports whether b holds the whole of box o.
func (b Box) covers(o [4]float64) bool {
	return o[0] >= b[0] && o[2] <= b[2] && o[1] >= b[1] && o[3] <= b[3]
}

// overlaps reports whether b and box o share a point.
func (b Box) overlaps(o [4]float64) bool {
	return o[0] <= b[2] && o[2] >= b[0] && o[1] <= b[3] && o[3] >= b[1]
}

// Intersects reports whether geometry g shares a point with b: the exact
// test behind a bbox filter once the stored boxes have picked candidates.
func (b Box) Intersects(g geom.T) bool {
	ring := []float64{b[0], b[1], b[2], b[1], b[2], b[3], b[0], b[3], b[0], b[1]}
	return cql2.Intersects(geom.NewPolygonFlat(geom.XY, ring, []int{len(ring)}), g)
}
