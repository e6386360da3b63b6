package gdal_test

import (
	"errors"
	"math"
	"testing"

	"github.com/geopub/geopub/internal/gdal"
)

// CRS84 to NZTM and back: Wellington in northing, easting order (EPSG's
// for 2193) and home again.
func TestTransformRoundTrip(t *testing.T) {
	tr, err := gdal.NewTransform(2193)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	flat := []float64{174.7762, -41.2865, 7}
	if err := tr.Forward(flat, 3); err != nil {
		t.Fatal(err)
	}
	if math.Abs(flat[0]-5427000) > 5000 || math.Abs(flat[1]-1749000) > 5000 || flat[2] != 7 {
		t.Errorf("Forward = %v; want northing, easting of Wellington", flat)
	}
	if err := tr.Inverse(flat, 3); err != nil {
		t.Fatal(err)
	}
	if math.Abs(flat[0]-174.7762) > 1e-7 || math.Abs(flat[1]+41.2865) > 1e-7 {
		t.Errorf("round trip = %v", flat)
	}
	b, err := tr.InverseBounds([4]float64{5420000, 1740000, 5430000, 1750000})
	if err != nil || b[0] < 174 || b[2] > 175 || b[1] < -42 || b[3] > -41 {
		t.Errorf("InverseBounds = %v, %v", b, err)
	}
	if _, err := gdal.NewTransform(999999); !errors.Is(err, gdal.ErrUnknownEPSG) {
		t.Errorf("NewTransform(999999) = %v; want ErrUnknownEPSG", err)
	}
}

func TestNorthingFirst(t *testing.T) {
	for code, want := range map[int]bool{4326: true, 2193: true, 3857: false, 32760: false, 999999: false} {
		if got := gdal.NorthingFirst(code); got != want {
			t.Errorf("NorthingFirst(%d) = %v; want %v", code, got, want)
		}
	}
}
