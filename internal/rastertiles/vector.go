package rastertiles

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"golang.org/x/image/vector"

	"github.com/geopub/geopub/internal/vectortiles"
)

// Size is a tile's width and height in pixels.
const Size = 256

// Drawing sizes in pixels.
const (
	lineWidth    = 2.0
	outlineWidth = 1.5
	pointRadius  = 4.0
	fillAlpha    = 0.45
)

// scale maps MVT grid units to pixels.
const scale = float32(Size) / vectortiles.Extent

// pen maps a point of an MVT tile's grid to pixels of the rectangle
// being drawn (its top left corner at 0, 0).
type pen func(orb.Point) (float32, float32)

// tilePen draws a tile's grid onto a whole tile image.
func tilePen(p orb.Point) (float32, float32) { return float32(p[0]) * scale, float32(p[1]) * scale }

// drawMVT draws the features of an MVT tile onto a tile image in colour
// c: polygons first, then lines and outlines, then points on top.
func drawMVT(img *image.NRGBA, tile []byte, c color.NRGBA) error {
	return drawMVTIn(img, img.Bounds(), tile, c, tilePen)
}

// drawMVTIn draws the features of an MVT tile into rectangle r of img
// (nothing outside it), tr placing the grid's points in r: a tile of a
// picture of any box, size and CRS.
func drawMVTIn(img *image.NRGBA, r image.Rectangle, tile []byte, c color.NRGBA, tr pen) error {
	if len(tile) == 0 || r.Empty() {
		return nil
	}
	layers, err := mvt.Unmarshal(tile)
	if err != nil {
		return err
	}
	var fills, strokes, points []orb.Geometry
	for _, l := range layers {
		for _, f := range l.Features {
			switch g := f.Geometry.(type) {
			case orb.Polygon, orb.MultiPolygon:
				fills = append(fills, g)
			case orb.LineString, orb.MultiLineString:
				strokes = append(strokes, g)
			case orb.Point, orb.MultiPoint:
				points = append(points, g)
			}
		}
	}
	fill := c
	fill.A = uint8(math.Round(float64(c.A) * fillAlpha))
	paint(img, r, fill, func(z *vector.Rasterizer) {
		for _, g := range fills {
			for _, ring := range rings(g) {
				path(z, tr, ring)
			}
		}
	})
	paint(img, r, c, func(z *vector.Rasterizer) {
		for _, g := range fills {
			for _, ring := range rings(g) {
				stroke(z, tr, orb.LineString(ring), outlineWidth)
			}
		}
		for _, g := range strokes {
			switch g := g.(type) {
			case orb.LineString:
				stroke(z, tr, g, lineWidth)
			case orb.MultiLineString:
				for _, ls := range g {
					stroke(z, tr, ls, lineWidth)
				}
			}
		}
	})
	paint(img, r, c, func(z *vector.Rasterizer) {
		for _, g := range points {
			switch g := g.(type) {
			case orb.Point:
				disc(z, tr, g, pointRadius)
			case orb.MultiPoint:
				for _, p := range g {
					disc(z, tr, p, pointRadius)
				}
			}
		}
	})
	return nil
}

// paint rasterizes what add draws into one coverage mask the size of r
// and composites colour c over r of img through it.
func paint(img *image.NRGBA, r image.Rectangle, c color.NRGBA, add func(z *vector.Rasterizer)) {
	z := vector.NewRasterizer(r.Dx(), r.Dy())
	z.DrawOp = draw.Over
	add(z)
	z.Draw(img, r, image.NewUniform(c), image.Point{})
}

// rings lists a polygon's or multipolygon's rings.
func rings(g orb.Geometry) []orb.Ring {
	switch g := g.(type) {
	case orb.Polygon:
		return g
	case orb.MultiPolygon:
		var out []orb.Ring
		for _, p := range g {
			out = append(out, p...)
		}
		return out
	}
	return nil
}

// path adds a closed ring as it is (its orientation decides whether it
// fills or cuts a hole: the rasterizer sums signed coverage).
func path(z *vector.Rasterizer, px pen, ring []orb.Point) {
	if len(ring) < 3 {
		return
	}
	z.MoveTo(px(ring[0]))
	for _, p := range ring[1:] {
		z.LineTo(px(p))
	}
	z.ClosePath()
}

// shape adds a closed polygon given in pixels, turned counter-clockwise,
// so that overlapping shapes add up rather than cancel.
func shape(z *vector.Rasterizer, pts [][2]float32) {
	var area float32
	for i := range pts {
		j := (i + 1) % len(pts)
		area += pts[i][0]*pts[j][1] - pts[j][0]*pts[i][1]
	}
	if area == 0 {
		return
	}
	if area < 0 {
		for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
			pts[i], pts[j] = pts[j], pts[i]
		}
	}
	z.MoveTo(pts[0][0], pts[0][1])
	for _, p := range pts[1:] {
		z.LineTo(p[0], p[1])
	}
	z.ClosePath()
}

// stroke adds a line of width w: a rectangle along each segment and a
// disc at each vertex for the joins.
func stroke(z *vector.Rasterizer, px pen, ls orb.LineString, w float32) {
	h := w / 2
	for i := 0; i+1 < len(ls); i++ {
		ax, ay := px(ls[i])
		bx, by := px(ls[i+1])
		dx, dy := bx-ax, by-ay
		n := float32(math.Hypot(float64(dx), float64(dy)))
		if n == 0 {
			continue
		}
		nx, ny := -dy/n*h, dx/n*h
		shape(z, [][2]float32{{ax + nx, ay + ny}, {bx + nx, by + ny}, {bx - nx, by - ny}, {ax - nx, ay - ny}})
	}
	for i, p := range ls {
		if i > 0 && i < len(ls)-1 {
			disc(z, px, p, h)
		}
	}
}

// disc adds a 16-sided disc of radius r (pixels) around p.
func disc(z *vector.Rasterizer, px pen, p orb.Point, r float32) {
	cx, cy := px(p)
	pts := make([][2]float32, 16)
	for i := range pts {
		a := float64(i) * 2 * math.Pi / 16
		pts[i] = [2]float32{cx + r*float32(math.Cos(a)), cy + r*float32(math.Sin(a))}
	}
	shape(z, pts)
}
