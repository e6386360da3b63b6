package exportfile

import (
	"archive/zip"
	"context"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/airbusgeo/godal"
)

// BenchmarkRasterRatios measures, per format, the zipped size of what
// WriteRaster writes over the raw cell bytes (pixels × bands × bytes per
// cell): the ratios formats_raster.go estimates with. The data is a
// synthetic 1000×1000 terrain (float32 heights in centimetres over
// rolling hills with rough ground) and imagery coloured from it with
// sensor noise: real data compresses differently, so the ratios are a
// starting point, printed as "zipped/raw".
//
//	go test -run '^$' -bench RasterRatios -benchtime 1x ./internal/exportfile/
func BenchmarkRasterRatios(b *testing.B) {
	dir := b.TempDir()
	terrain := terrainRaster()
	gridPath := filepath.Join(dir, "dem.tif")
	terrain.write(b, gridPath)
	imagery := imageryRaster(terrain)
	imgPath := filepath.Join(dir, "img.tif")
	imagery.write(b, imgPath)

	for _, c := range []struct {
		kind Kind
		path string
		r    testRaster
	}{{KindGrid, gridPath, terrain}, {KindRaster, imgPath, imagery}} {
		raw := int64(c.r.w*c.r.h) * int64(c.r.bands) * int64(c.r.dtype.Size())
		for _, f := range Formats(c.kind) {
			b.Run(string(c.kind)+"/"+f.Display, func(b *testing.B) {
				var zipped int64
				for b.Loop() {
					out := b.TempDir()
					res, err := WriteRaster(context.Background(), out, RasterItem{Name: "x", Kind: c.kind, Path: c.path}, f, Options{})
					if err != nil {
						b.Fatal(err)
					}
					zipped = zipSize(b, out, res.Files)
				}
				b.ReportMetric(float64(zipped)/float64(raw), "zipped/raw")
			})
		}
	}
}

// zipSize is the size of a deflated zip of files in dir.
func zipSize(b *testing.B, dir string, files []string) int64 {
	cw := &countWriter{}
	zw := zip.NewWriter(cw)
	for _, name := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(w, f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return cw.n
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// terrainRaster is a 1000×1000 float32 grid of heights (metres, to the
// centimetre) in EPSG:2193.
func terrainRaster() testRaster {
	const n = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	heights := make([]float64, n*n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			fx, fy := float64(x)/n, float64(y)/n
			h := 400 + 250*math.Sin(fx*7)*math.Cos(fy*5) + 80*math.Sin(fx*31+fy*17) + 3*rng.NormFloat64()
			heights[y*n+x] = math.Round(h*100) / 100
		}
	}
	nd := float64(gridNodata)
	return testRaster{epsg: 2193, geo: [6]float64{1740000, 25, 0, 5940000, 0, -25},
		w: n, h: n, bands: 1, dtype: godal.Float32, nodata: &nd,
		value: func(_, x, y int) float64 { return heights[y*n+x] }}
}

// imageryRaster is RGB imagery over a terrain: hill-shaded greens and
// browns with sensor noise.
func imageryRaster(t testRaster) testRaster {
	rng := rand.New(rand.NewPCG(3, 4))
	n := t.w
	noise := make([]float64, n*n*3)
	for i := range noise {
		noise[i] = 4 * rng.NormFloat64()
	}
	r := t
	r.bands, r.dtype, r.nodata = 3, godal.Byte, nil
	r.value = func(b, x, y int) float64 {
		h := t.value(0, x, y)
		dx := t.value(0, min(x+1, n-1), y) - h
		shade := 0.6 + 0.4*math.Tanh(-dx/5)
		base := [3]float64{90 + h/10, 120 + h/12, 60 + h/20}[b]
		return math.Max(0, math.Min(255, math.Round(base*shade+noise[(y*n+x)*3+b])))
	}
	return r
}
