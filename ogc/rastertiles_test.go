package ogc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"net/http"
	"testing"

	"golang.org/x/image/webp"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/rastertiles"
)

func rasterPath(kind string, id, z, x, y int, ext string) string {
	return fmt.Sprintf("/services/tiles/v1/%s=%d/%d/%d/%d.%s", kind, id, z, x, y, ext)
}

// getImage fetches a tile and decodes it as the format it says it is.
func getImage(t *testing.T, e *env, path string, header map[string]string) image.Image {
	t.Helper()
	resp, body := fetch(t, e, path, header)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
	}
	var img image.Image
	var err error
	switch ct := resp.Header.Get("Content-Type"); ct {
	case "image/png":
		img, err = png.Decode(bytes.NewReader(body))
	case "image/jpeg":
		img, err = jpeg.Decode(bytes.NewReader(body))
	case "image/webp":
		img, err = webp.Decode(bytes.NewReader(body))
	default:
		t.Fatalf("%s: content type %q", path, ct)
	}
	if err != nil {
		t.Fatalf("%s: decoding: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 256 {
		t.Fatalf("%s: %v pixels", path, b)
	}
	return img
}

func nrgba(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }

func near(a, b color.NRGBA, tol int) bool {
	d := func(x, y uint8) bool { return math.Abs(float64(x)-float64(y)) <= float64(tol) }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && d(a.A, b.A)
}

// Grid and raster layers' tiles are the warped COG: a grid's values on the
// ramp, a raster's colours, transparent outside and on nodata (white in
// JPEG); PNG, JPEG and WebP decode; raster.json describes the PNG tiles.
func TestRasterTilesOfGrids(t *testing.T) {
	gridSrc, rgbSrc := writeGridFixtures(t)
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		grid := publishGrid(t, e, owner.User, "Heights", layer.KindGrid, gridSrc)
		rgb := publishGrid(t, e, owner.User, "Photo", layer.KindRaster, rgbSrc)
		// A zoom-13 tile over the grid's north-west corner: part
		// inside, part outside.
		z := 13
		x, y := tileXY(gridWest, gridNorth, z)
		lo, hi := 0.0, float64(gridH-1)*10+float64(gridW-1)
		img := getImage(t, e, rasterPath("layer", grid, z, x, y, "png"), nil)
		var inside, outside, masked int
		for py := 2; py < 256; py += 5 {
			for px := 2; px < 256; px += 5 {
				lon, lat := pixelLonLat(z, x, y, float64(px), float64(py))
				c, r := cellAt(lon, lat)
				got := nrgba(img.At(px, py))
				ci, ri := int(math.Floor(c)), int(math.Floor(r))
				switch {
				case c < -1 || r < -1 || c > gridW+1 || r > gridH+1:
					outside++
					if got.A != 0 {
						t.Fatalf("pixel %d,%d outside the grid: %v", px, py, got)
					}
				case c > 1 && r > 1 && c < gridW-2 && r < gridH-2 && !nearNodata(ci, ri):
					inside++
					want := rastertiles.Ramp(r*10+c-5.5, lo, hi)
					if !near(got, want, 4) {
						t.Fatalf("pixel %d,%d (cell %.1f,%.1f): %v, want %v", px, py, c, r, got, want)
					}
				case gridNodataCell(ci, ri) && gridNodataCell(ci-1, ri-1) && gridNodataCell(ci+1, ri+1):
					masked++
					if got.A != 0 {
						t.Fatalf("pixel %d,%d on nodata: %v", px, py, got)
					}
				}
			}
		}
		if inside < 100 || outside < 100 {
			t.Fatalf("%d pixels inside, %d outside: the tile should straddle the corner", inside, outside)
		}
		// The nodata block.
		zb := 14
		bx, by := tileXY(gridWest+275*gridCell, gridNorth-85*gridCell, zb)
		img = getImage(t, e, rasterPath("layer", grid, zb, bx, by, "png"), nil)
		for py := 2; py < 256; py += 7 {
			for px := 2; px < 256; px += 7 {
				lon, lat := pixelLonLat(zb, bx, by, float64(px), float64(py))
				c, r := cellAt(lon, lat)
				ci, ri := int(math.Floor(c)), int(math.Floor(r))
				if gridNodataCell(ci, ri) && gridNodataCell(ci-1, ri-1) && gridNodataCell(ci+1, ri+1) {
					masked++
					if got := nrgba(img.At(px, py)); got.A != 0 {
						t.Fatalf("pixel %d,%d on nodata: %v", px, py, got)
					}
				}
			}
		}
		if masked < 50 {
			t.Fatalf("%d nodata pixels checked", masked)
		}

		// The colour raster in each format.
		for _, ext := range []string{"png", "jpg", "webp"} {
			img := getImage(t, e, rasterPath("layer", rgb, z, x, y, ext), nil)
			checked := 0
			for py := 2; py < 256; py += 9 {
				for px := 2; px < 256; px += 9 {
					lon, lat := pixelLonLat(z, x, y, float64(px), float64(py))
					c, r := cellAt(lon, lat)
					got := nrgba(img.At(px, py))
					switch {
					case c < -1 || r < -1:
						want := color.NRGBA{}
						if ext == "jpg" {
							want = color.NRGBA{R: 255, G: 255, B: 255, A: 255}
						}
						if !near(got, want, 6) {
							t.Fatalf("%s pixel %d,%d outside: %v", ext, px, py, got)
						}
					case c > 1 && r > 1:
						v := rgbOf(0, 0)
						v[0], v[1] = (c-0.5)*0.6, (r-0.5)*0.8
						want := color.NRGBA{R: uint8(math.Round(v[0])), G: uint8(math.Round(v[1])), B: 128, A: 255}
						if !near(got, want, 6) {
							t.Fatalf("%s pixel %d,%d (cell %.1f,%.1f): %v, want %v", ext, px, py, c, r, got, want)
						}
						checked++
					}
				}
			}
			if checked < 50 {
				t.Fatalf("%s: %d pixels checked", ext, checked)
			}
		}

		// A tile far from the data is transparent; the ETag validates.
		resp, body := fetch(t, e, rasterPath("layer", rgb, 3, 0, 0, "png"), nil)
		empty, err := png.Decode(bytes.NewReader(body))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("far tile: %d %v", resp.StatusCode, err)
		}
		if c := nrgba(empty.At(128, 128)); c.A != 0 {
			t.Fatalf("far tile: %v", c)
		}
		etag := resp.Header.Get("ETag")
		if r2, _ := fetch(t, e, rasterPath("layer", rgb, 3, 0, 0, "png"), map[string]string{"If-None-Match": etag}); r2.StatusCode != http.StatusNotModified {
			t.Fatalf("If-None-Match: %d", r2.StatusCode)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Cache-Control") == "" {
			t.Fatalf("headers %v", resp.Header)
		}

		// raster.json
		var tj rastertiles.TileJSON
		getJSON(t, e, fmt.Sprintf("/services/tiles/v1/layer=%d/raster.json", grid), &tj)
		if tj.TileJSON != "3.0.0" || len(tj.Tiles) != 1 || tj.MaxZoom != 12 ||
			math.Abs(tj.Bounds[0]-gridWest) > 1e-9 || math.Abs(tj.Bounds[3]-gridNorth) > 1e-9 {
			b, _ := json.Marshal(tj)
			t.Fatalf("raster.json %s", b)
		}
	})
}

// nearNodata reports whether a cell is within a cell of the nodata block.
func nearNodata(c, r int) bool {
	for dc := -2; dc <= 2; dc++ {
		for dr := -2; dr <= 2; dr++ {
			if gridNodataCell(c+dc, r+dr) {
				return true
			}
		}
	}
	return false
}
