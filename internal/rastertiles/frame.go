package rastertiles

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"math"

	"github.com/airbusgeo/godal"
	"github.com/paulmach/orb"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/vectortiles"
)

// The CRSs a picture of any box (DrawFrame) can be drawn in.
const (
	LonLat      = 4326 // EPSG:4326, x longitude and y latitude in degrees
	WebMercator = 3857 // EPSG:3857, metres
)

// Limits of a picture drawn by DrawFrame.
const (
	// MaxFrameSide is the widest and tallest picture, in pixels.
	MaxFrameSide = 4096
	// maxFrameTiles bounds the vector tiles one picture reads: a coarser
	// zoom is used when the chosen one would need more.
	maxFrameTiles = 1024
)

// earthRadius is Web Mercator's sphere radius in metres.
const earthRadius = 6378137.0

// Frame is a picture: its box [minx, miny, maxx, maxy] in CRS SR (LonLat
// or WebMercator) and its size in pixels, rows from the north.
type Frame struct {
	SR   int
	Box  [4]float64
	W, H int
}

// ErrFrame is the answer for a frame that cannot be drawn.
var ErrFrame = errors.New("rastertiles: bad frame")

// Check reports what makes fr undrawable (nil when it can be drawn): an
// unknown CRS, an empty or inverted box, one outside the CRS's range, a
// size beyond MaxFrameSide.
func (fr Frame) Check() error {
	if fr.SR != LonLat && fr.SR != WebMercator {
		return fmt.Errorf("%w: CRS EPSG:%d is not one of 4326 and 3857", ErrFrame, fr.SR)
	}
	b := fr.Box
	for _, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: the box has a coordinate that is not a number", ErrFrame)
		}
	}
	if !(b[0] < b[2] && b[1] < b[3]) {
		return fmt.Errorf("%w: the box's minimum must be below its maximum on both axes", ErrFrame)
	}
	lim := [2]float64{360, 90}
	if fr.SR == WebMercator {
		lim = [2]float64{2 * mercatorHalf, 2 * mercatorHalf}
	}
	if math.Abs(b[0]) > lim[0] || math.Abs(b[2]) > lim[0] || math.Abs(b[1]) > lim[1] || math.Abs(b[3]) > lim[1] {
		return fmt.Errorf("%w: the box is outside the CRS's range", ErrFrame)
	}
	if fr.W < 1 || fr.H < 1 || fr.W > MaxFrameSide || fr.H > MaxFrameSide {
		return fmt.Errorf("%w: the size must be from 1 to %d pixels a side", ErrFrame, MaxFrameSide)
	}
	return nil
}

// ToMercator is lon, lat in EPSG:3857 (latitude clamped to Web
// Mercator's range).
func ToMercator(lon, lat float64) (x, y float64) {
	lat = math.Max(-maxLat, math.Min(maxLat, lat))
	return lon * mercatorHalf / 180, earthRadius * math.Log(math.Tan(math.Pi/4+lat*math.Pi/360))
}

// ToLonLat is EPSG:3857 x, y as longitude and latitude.
func ToLonLat(x, y float64) (lon, lat float64) {
	return x / mercatorHalf * 180, (2*math.Atan(math.Exp(y/earthRadius)) - math.Pi/2) * 180 / math.Pi
}

// MercatorOf is fr's box in EPSG:3857.
func (fr Frame) MercatorOf() [4]float64 {
	if fr.SR == WebMercator {
		return fr.Box
	}
	x0, y0 := ToMercator(fr.Box[0], fr.Box[1])
	x1, y1 := ToMercator(fr.Box[2], fr.Box[3])
	return [4]float64{x0, y0, x1, y1}
}

// pixel is where EPSG:3857 x, y lie in the picture.
func (fr Frame) pixel(x, y float64) (float64, float64) {
	if fr.SR == LonLat {
		x, y = ToLonLat(x, y)
	}
	b := fr.Box
	return (x - b[0]) / (b[2] - b[0]) * float64(fr.W), (b[3] - y) / (b[3] - b[1]) * float64(fr.H)
}

// DrawFrame draws layers ls (whose access the caller checked) in frame
// fr with style st, in order (the first at the bottom), as tiles draw
// them: a vector layer from the vector tiles of the zoom whose pixels
// are nearest the picture's, each tile's part placed where it lies (so
// the picture shows what the tiles of that zoom show), a grid or raster
// layer warped by GDAL onto the frame. Pixels nothing covers are
// transparent.
func (s *Service) DrawFrame(ctx context.Context, ls []*vectortiles.Layer, fr Frame, st Style) (*image.NRGBA, error) {
	if err := fr.Check(); err != nil {
		return nil, err
	}
	out := image.NewNRGBA(image.Rect(0, 0, fr.W, fr.H))
	for _, l := range ls {
		if l.Kind == layer.KindVector {
			if err := s.drawVectorFrame(ctx, out, l, fr, st); err != nil {
				return nil, err
			}
			continue
		}
		if len(l.Extent) == 4 {
			ll := fr.Box
			if fr.SR == WebMercator {
				w, so := ToLonLat(ll[0], ll[1])
				e, n := ToLonLat(ll[2], ll[3])
				ll = [4]float64{w, so, e, n}
			}
			if !overlaps(ll, [4]float64(l.Extent)) {
				continue
			}
		}
		img, err := s.warp(ctx, l, func(ds *godal.Dataset, lk *gridLook) (*image.NRGBA, error) { return warpFrame(ds, fr, lk) })
		if err != nil {
			return nil, err
		}
		if img != nil {
			draw.Draw(out, out.Bounds(), img, image.Point{}, draw.Over)
		}
	}
	return out, nil
}

// FrameZoom is the zoom whose tiles DrawFrame reads for a picture whose
// pixels are res metres (EPSG:3857) wide: the one with the nearest pixel
// size, 0 to vectortiles.MaxZoom.
func FrameZoom(res float64) int {
	z := int(math.Round(math.Log2(2 * mercatorHalf / Size / res)))
	return max(0, min(z, vectortiles.MaxZoom))
}

// drawVectorFrame draws a vector layer's tiles into out.
func (s *Service) drawVectorFrame(ctx context.Context, out *image.NRGBA, l *vectortiles.Layer, fr Frame, st Style) error {
	mb := fr.MercatorOf()
	res := math.Min((mb[2]-mb[0])/float64(fr.W), (mb[3]-mb[1])/float64(fr.H))
	z := FrameZoom(res)
	var x0, x1, y0, y1 int
	for ; ; z-- {
		n := 1 << z
		size := 2 * mercatorHalf / float64(n)
		cl := func(v float64) int { return max(0, min(n-1, int(math.Floor(v)))) }
		x0, x1 = cl((mb[0]+mercatorHalf)/size), cl((mb[2]+mercatorHalf)/size)
		y0, y1 = cl((mercatorHalf-mb[3])/size), cl((mercatorHalf-mb[1])/size)
		if (x1-x0+1)*(y1-y0+1) <= maxFrameTiles || z == 0 {
			break
		}
	}
	c := st.colorOf(l.ID)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			t := vectortiles.Tile{Z: z, X: x, Y: y}
			mvt, err := s.vt.LayerMVT(context.WithoutCancel(ctx), l, t)
			if err != nil {
				return err
			}
			if len(mvt) == 0 {
				continue
			}
			tb := MercatorBox(t)
			ax, ay := fr.pixel(tb[0], tb[3])
			bx, by := fr.pixel(tb[2], tb[1])
			r := image.Rect(int(math.Round(ax)), int(math.Round(ay)), int(math.Round(bx)), int(math.Round(by))).Intersect(out.Bounds())
			if r.Empty() {
				continue
			}
			size := tb[2] - tb[0]
			tr := func(p orb.Point) (float32, float32) {
				px, py := fr.pixel(tb[0]+p[0]/vectortiles.Extent*size, tb[3]-p[1]/vectortiles.Extent*size)
				return float32(px - float64(r.Min.X)), float32(py - float64(r.Min.Y))
			}
			if err := drawMVTIn(out, r, mvt, c, tr); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
