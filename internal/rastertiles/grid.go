package rastertiles

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"
	"sync"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/vectortiles"
)

// mercatorHalf is half the width of the Web Mercator world in metres.
const mercatorHalf = 20037508.342789244

// MercatorBox is tile t's [minx, miny, maxx, maxy] in EPSG:3857.
func MercatorBox(t vectortiles.Tile) [4]float64 {
	size := 2 * mercatorHalf / float64(int(1)<<t.Z)
	minx := -mercatorHalf + float64(t.X)*size
	maxy := mercatorHalf - float64(t.Y)*size
	return [4]float64{minx, maxy - size, minx + size, maxy}
}

// lonLatBox is tile t's [west, south, east, north] in EPSG:4326.
func lonLatBox(t vectortiles.Tile) [4]float64 { return t.Envelope(0) }

// gridLook is what drawing a version's grid needs to know once.
type gridLook struct {
	grid     bool // values (a ramp), not imagery
	lo, hi   float64
	palette  []color.NRGBA
	resample string
	// stretch maps imagery that is not bytes (16-bit, float) from each
	// band's range onto 0–255; nil for byte imagery.
	stretch [][2]float64
}

// looks remembers each version's gridLook (a version never changes).
type looks struct {
	mu sync.Mutex
	m  map[int]*gridLook
}

// open opens a grid file read-only.
func open(path string) (*godal.Dataset, error) {
	gdal.Init()
	ds, err := godal.Open(path, godal.RasterOnly(), godal.Drivers("GTiff"))
	if err != nil {
		return nil, fmt.Errorf("rastertiles: opening a grid: %w", err)
	}
	return ds, nil
}

// lookOf reads how to draw a grid: a grid's first band's range (from
// its smallest overview, nodata left out), a palette's colours.
func lookOf(ds *godal.Dataset, grid bool) (*gridLook, error) {
	bands := ds.Bands()
	if len(bands) == 0 {
		return nil, fmt.Errorf("rastertiles: a grid without bands")
	}
	lk := &gridLook{grid: grid, resample: "bilinear"}
	b := bands[0]
	if !grid && b.ColorInterp() == godal.CIPalette {
		ct := b.ColorTable()
		for _, e := range ct.Entries {
			lk.palette = append(lk.palette, color.NRGBA{R: clamp8(float64(e[0])), G: clamp8(float64(e[1])), B: clamp8(float64(e[2])), A: clamp8(float64(e[3]))})
		}
		lk.resample = "near"
	}
	if grid {
		var err error
		lk.lo, lk.hi, err = bandRange(ds, b)
		return lk, err
	}
	if lk.palette == nil && b.Structure().DataType != godal.Byte {
		for _, b := range bands[:min(3, len(bands))] {
			lo, hi, err := bandRange(ds, b)
			if err != nil {
				return nil, err
			}
			lk.stretch = append(lk.stretch, [2]float64{lo, hi})
		}
	}
	return lk, nil
}

// bandRange is a band's smallest and largest value, nodata and NaN left
// out, read at no more than 512 cells a side (an overview when there is
// one).
func bandRange(ds *godal.Dataset, b godal.Band) (lo, hi float64, err error) {
	st := ds.Structure()
	w, h := st.SizeX, st.SizeY
	if f := math.Max(float64(w), float64(h)) / 512; f > 1 {
		w, h = max(1, int(float64(w)/f)), max(1, int(float64(h)/f))
	}
	buf := make([]float64, w*h)
	if err := b.Read(0, 0, buf, w, h, godal.Window(st.SizeX, st.SizeY)); err != nil {
		return 0, 0, fmt.Errorf("rastertiles: reading a band's range: %w", err)
	}
	nd, hasND := b.NoData()
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range buf {
		if math.IsNaN(v) || (hasND && v == nd) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo > hi {
		return 0, 0, nil
	}
	return lo, hi, nil
}

// warpTile warps ds onto tile t and draws it by lk: nil when nothing of
// the grid is in the tile.
func warpTile(ds *godal.Dataset, t vectortiles.Tile, lk *gridLook) (*image.NRGBA, error) {
	return warpFrame(ds, Frame{SR: WebMercator, Box: MercatorBox(t), W: Size, H: Size}, lk)
}

// warpFrame warps ds onto a picture's frame and draws it by lk: nil when
// nothing of the grid is in it.
func warpFrame(ds *godal.Dataset, fr Frame, lk *gridLook) (*image.NRGBA, error) {
	box, w, h := fr.Box, fr.W, fr.H
	sw := []string{"-of", "MEM", "-t_srs", "EPSG:" + strconv.Itoa(fr.SR),
		"-te", ftoa(box[0]), ftoa(box[1]), ftoa(box[2]), ftoa(box[3]),
		"-ts", strconv.Itoa(w), strconv.Itoa(h), "-r", lk.resample, "-dstalpha"}
	out, err := godal.Warp("", []*godal.Dataset{ds}, sw, godal.ErrLogger(quiet))
	if err != nil {
		return nil, fmt.Errorf("rastertiles: warping %v: %w", fr, err)
	}
	defer out.Close()
	bands := out.Bands()
	n := len(bands) - 1 // the last band is the alpha -dstalpha added
	if n < 1 {
		return nil, fmt.Errorf("rastertiles: warping %v gave %d bands", fr, len(bands))
	}
	alpha := make([]float64, w*h)
	if err := bands[n].Read(0, 0, alpha, w, h); err != nil {
		return nil, err
	}
	vals := make([][]float64, min(n, 3))
	for i := range vals {
		vals[i] = make([]float64, w*h)
		if err := bands[i].Read(0, 0, vals[i], w, h); err != nil {
			return nil, err
		}
		if i < len(lk.stretch) {
			lo, hi := lk.stretch[i][0], lk.stretch[i][1]
			for p, v := range vals[i] {
				if hi > lo {
					vals[i][p] = (v - lo) / (hi - lo) * 255
				}
			}
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	any := false
	for i := range alpha {
		a := clamp8(alpha[i])
		if a == 0 {
			continue
		}
		any = true
		var c color.NRGBA
		switch {
		case lk.grid:
			c = Ramp(vals[0][i], lk.lo, lk.hi)
		case lk.palette != nil:
			if k := int(vals[0][i]); k >= 0 && k < len(lk.palette) {
				c = lk.palette[k]
			}
		case len(vals) >= 3:
			c = color.NRGBA{R: clamp8(vals[0][i]), G: clamp8(vals[1][i]), B: clamp8(vals[2][i]), A: 255}
		default:
			g := clamp8(vals[0][i])
			c = color.NRGBA{R: g, G: g, B: g, A: 255}
		}
		c.A = uint8(int(c.A) * int(a) / 255)
		img.SetNRGBA(i%w, i/w, c)
	}
	if !any {
		return nil, nil
	}
	return img, nil
}

func clamp8(v float64) uint8 {
	if math.IsNaN(v) || v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(math.Round(v))
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// quiet drops GDAL's warnings and passes its failures on.
func quiet(ec godal.ErrorCategory, code int, msg string) error {
	if ec <= godal.CE_Warning {
		return nil
	}
	return fmt.Errorf("GDAL error %d: %s", code, msg)
}
