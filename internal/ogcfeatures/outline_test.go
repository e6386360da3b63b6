package ogcfeatures

import (
	"testing"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
)

// boxAround is the box in c's axis order around lon, lat positions.
func boxAround(t *testing.T, tr *Transformer, lonlat ...float64) [4]float64 {
	t.Helper()
	if err := tr.Forward(lonlat, 2); err != nil {
		t.Fatal(err)
	}
	b := [4]float64{lonlat[0], lonlat[1], lonlat[0], lonlat[1]}
	for i := 2; i < len(lonlat); i += 2 {
		b = [4]float64{min(b[0], lonlat[i]), min(b[1], lonlat[i+1]), max(b[2], lonlat[i]), max(b[3], lonlat[i+1])}
	}
	return b
}

func inOutlines(outlines []*geom.Polygon, lon, lat float64) bool {
	p := geom.NewPointFlat(geom.XY, []float64{lon, lat})
	for _, o := range outlines {
		if cql2.Intersects(o, p) {
			return true
		}
	}
	return false
}

func TestInverseBox(t *testing.T) {
	for _, tc := range []struct {
		name     string
		code     int
		around   []float64
		box      *[4]float64
		outlines int
		in, out  [][2]float64
	}{
		// NZTM: the box is turned about 1.2° from the meridians, so the
		// corners of its CRS84 envelope are outside it.
		{name: "NZTM", code: 2193, box: &[4]float64{5420000, 1740000, 5430000, 1750000}, outlines: 1},
		// PDC Mercator (central meridian 150°E) across the antimeridian.
		{name: "antimeridian", code: 3832, around: []float64{170, -20, -170, -10}, outlines: 2,
			in: [][2]float64{{179.9, -15}, {-179.9, -15}, {175, -19}}, out: [][2]float64{{0, -15}, {165, -15}, {-165, -15}}},
		// Antarctic polar stereographic, a box around the pole: all
		// longitudes, 360° from its first position, with its copy.
		{name: "pole", code: 3031, box: &[4]float64{-1e6, -1e6, 1e6, 1e6}, outlines: 2,
			in: [][2]float64{{45, -85}, {179.99, -89}, {-120, -82}}, out: [][2]float64{{45, -70}, {0, 89}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := NewTransformer(CRS{EPSG: tc.code})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			var b [4]float64
			if tc.box != nil {
				b = *tc.box
			} else {
				b = boxAround(t, tr, tc.around...)
			}
			env, outlines, err := tr.InverseBox(b)
			if err != nil || len(outlines) != tc.outlines {
				t.Fatalf("envelope %v, %d outlines, %v", env, len(outlines), err)
			}
			for _, p := range tc.in {
				if !inOutlines(outlines, p[0], p[1]) {
					t.Errorf("%v is not inside", p)
				}
			}
			for _, p := range tc.out {
				if inOutlines(outlines, p[0], p[1]) {
					t.Errorf("%v is inside", p)
				}
			}
			if tc.code == 2193 {
				// Each corner of the envelope, a metre in, is outside.
				d := 1e-5
				for _, c := range [][2]float64{{env[0] + d, env[1] + d}, {env[2] - d, env[1] + d}, {env[2] - d, env[3] - d}, {env[0] + d, env[3] - d}} {
					if inOutlines(outlines, c[0], c[1]) {
						t.Errorf("envelope corner %v is inside", c)
					}
				}
				if !inOutlines(outlines, (env[0]+env[2])/2, (env[1]+env[3])/2) {
					t.Errorf("the middle is outside")
				}
			}
		})
	}
}
