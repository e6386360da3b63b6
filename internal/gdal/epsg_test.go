package gdal_test

import (
	"testing"

	"github.com/geopub/geopub/internal/gdal"
)

func TestClassifyEPSG(t *testing.T) {
	for _, c := range []struct {
		code              int
		horizontal, known bool
	}{
		{4326, true, true},  // geographic
		{2193, true, true},  // projected (NZTM)
		{5773, false, true}, // vertical (EGM96 height)
		{4978, false, true}, // geocentric
		{999999, false, false},
	} {
		h, k := gdal.ClassifyEPSG(c.code)
		if h != c.horizontal || k != c.known {
			t.Errorf("ClassifyEPSG(%d) = %v, %v; want %v, %v", c.code, h, k, c.horizontal, c.known)
		}
	}
}

func TestAreaOfUse(t *testing.T) {
	w, s, e, n, ok := gdal.AreaOfUse(2193)
	if !ok || w < 160 || e > 180 || s < -50 || n > -30 || w >= e || s >= n {
		t.Errorf("AreaOfUse(2193) = %v %v %v %v %v; want New Zealand", w, s, e, n, ok)
	}
	if _, _, _, _, ok := gdal.AreaOfUse(999999); ok {
		t.Error("AreaOfUse(999999): an area for an unknown code")
	}
}
