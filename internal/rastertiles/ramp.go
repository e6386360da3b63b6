package rastertiles

import (
	"image/color"
	"math"
)

// rampStops is the grid colour ramp (low to high: dark blue, teal, green,
// yellow), even steps apart.
var rampStops = []color.NRGBA{
	{R: 0x44, G: 0x01, B: 0x54, A: 255}, {R: 0x3b, G: 0x52, B: 0x8b, A: 255}, {R: 0x21, G: 0x90, B: 0x8d, A: 255},
	{R: 0x5d, G: 0xc8, B: 0x63, A: 255}, {R: 0xfd, G: 0xe7, B: 0x25, A: 255},
}

// Ramp is the colour of value v on the ramp stretched over [lo, hi]:
// values beyond the range take the end colours.
func Ramp(v, lo, hi float64) color.NRGBA {
	f := 0.5
	if hi > lo {
		f = math.Max(0, math.Min(1, (v-lo)/(hi-lo)))
	}
	pos := f * float64(len(rampStops)-1)
	i := min(int(pos), len(rampStops)-2)
	t := pos - float64(i)
	a, b := rampStops[i], rampStops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*t)) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 255}
}
