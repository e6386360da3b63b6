package cellkey

import (
	"math"
	"testing"
)

// Keys follow size: a box's level is the finest whose cells are as large
// as the box, wherever it lies, and points are at the finest level.
func TestKeyLevel(t *testing.T) {
	for _, c := range []struct {
		b     [4]float64 // minx, miny, maxx, maxy
		level int
	}{
		{[4]float64{174.7, -41.3, 174.7, -41.3}, MaxLevel},
		{[4]float64{0, 0, 0, 0}, MaxLevel},
		{[4]float64{-0.001, -0.001, 0.001, 0.001}, 16}, // 0.002° tall fits a level-16 cell (0.0027°), across the prime meridian
		{[4]float64{-180, -90, 180, 90}, 0},
		{[4]float64{-10, -10, 100, 10}, 1},
		{[4]float64{179, 0, 181, 1}, 0}, // outside the frame: the root
		{[4]float64{math.NaN(), 0, 1, 1}, 0},
	} {
		if got := Level(Key(c.b[0], c.b[1], c.b[2], c.b[3])); got != c.level {
			t.Errorf("Key(%v) is at level %d, want %d", c.b, got, c.level)
		}
	}
}

func BenchmarkKey(b *testing.B) {
	var sink int64
	for i := 0; b.Loop(); i++ {
		x, y := float64(i%3600)/10-180, float64(i%1800)/10-90
		sink += Key(x, y, x+float64(i%7)*1e-3, y+float64(i%5)*1e-3)
	}
	_ = sink
}
