package ogcfeatures

import (
	"math"

	"github.com/twpayne/go-geom"
)

// edgePoints is how many positions each edge of a box is cut into before
// it is transformed: a straight edge in a projected CRS is a curve in
// CRS84.
const edgePoints = 32

// InverseBox brings a box given in the target CRS's axis order to CRS84:
// its envelope (minx > maxx when it crosses the antimeridian), which only
// picks candidates, and its outline, the exact area, densified along the
// edges. The outline's longitudes run on without a jump at the
// antimeridian, so it comes with its copy 360° east or west when it
// reaches past ±180 (features keep -180..180); a box around a pole is
// closed along the pole.
func (t *Transformer) InverseBox(b [4]float64) ([4]float64, []*geom.Polygon, error) {
	env, err := t.InverseBounds(b)
	if err != nil {
		return env, nil, err
	}
	corners := [][2]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}, {b[0], b[1]}}
	flat := make([]float64, 0, 2*(4*edgePoints+1))
	for i := 0; i < 4; i++ {
		a, c := corners[i], corners[i+1]
		for k := 0; k < edgePoints; k++ {
			f := float64(k) / edgePoints
			flat = append(flat, a[0]+f*(c[0]-a[0]), a[1]+f*(c[1]-a[1]))
		}
	}
	if err := t.Inverse(flat, 2); err != nil {
		return env, nil, err
	}
	// Unwrap: each longitude within 180° of the one before.
	for i := 2; i < len(flat); i += 2 {
		for flat[i]-flat[i-2] > 180 {
			flat[i] -= 360
		}
		for flat[i]-flat[i-2] < -180 {
			flat[i] += 360
		}
	}
	first, last := flat[0], flat[len(flat)-2]
	// The closing edge, from the last position back to the first, is
	// within 180° too unless the ring went once around a pole.
	if d := first - last; math.Abs(d) > 180 {
		pole, sum := 90.0, 0.0
		for i := 1; i < len(flat); i += 2 {
			sum += flat[i]
		}
		if sum < 0 {
			pole = -90
		}
		end := first - 360*math.Round(d/360)
		// On to the first position's copy, up to the pole, back along it.
		flat = append(flat, end, flat[1], end, pole, flat[0], pole)
	}
	flat = append(flat, flat[0], flat[1])
	p := geom.NewPolygonFlat(geom.XY, flat, []int{len(flat)})
	out := []*geom.Polygon{p}
	bounds := p.Bounds()
	for _, shift := range []float64{-360, 360} {
		if shift < 0 && bounds.Max(0) <= 180 || shift > 0 && bounds.Min(0) >= -180 {
			continue
		}
		moved := make([]float64, len(flat))
		for i := 0; i < len(flat); i += 2 {
			moved[i], moved[i+1] = flat[i]+shift, flat[i+1]
		}
		out = append(out, geom.NewPolygonFlat(geom.XY, moved, []int{len(moved)}))
	}
	return env, out, nil
}
