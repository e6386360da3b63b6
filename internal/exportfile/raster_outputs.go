package exportfile

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// rasterOutput writes a warped raster (from) into dir in one format.
type rasterOutput func(ctx context.Context, from, dir string, item RasterItem, p warpPlan, tmp string, progress func(float64)) error

// rasterOutputs are the writers of the raster and grid formats, by MIME
// value (formats_raster.go lists the formats themselves).
var rasterOutputs = map[string]rasterOutput{
	MIMEGeoTIFF:          writeCOG,
	MIMEJPEG:             writeJPEG,
	MIMEPNG:              writePNG,
	MIMEJPEG2000:         writeJP2(false),
	MIMEJPEG2000Lossless: writeJP2(true),
	MIMEErdasImagine:     writeHFA,
	MIMEASCIIGrid:        writeASCIIGrid,
}

// copyTo runs gdal_translate from a warped raster to the file dir/name.
func copyTo(ctx context.Context, from, dir, name, tmp string, switches []string, progress func(float64)) error {
	return gdal.Translate(ctx, from, filepath.Join(dir, name), switches, tmpConfig(tmp), progress)
}

// writeCOG writes a Cloud-Optimized GeoTIFF: tiled, deflate with a
// predictor, overviews (nearest neighbour for grids and palettes, so no
// value is invented), the CRS and nodata inside the file.
func writeCOG(ctx context.Context, from, dir string, item RasterItem, p warpPlan, tmp string, progress func(float64)) error {
	sw := []string{"-of", "COG", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=YES",
		"-co", "BLOCKSIZE=256", "-co", "OVERVIEWS=AUTO", "-co", "BIGTIFF=IF_SAFER"}
	if p.grid {
		sw = append(sw, "-co", "RESAMPLING=NEAREST")
	}
	return copyTo(ctx, from, dir, item.Name+".tif", tmp, sw, progress)
}

// writeHFA writes an ERDAS Imagine file (compressed; CRS inside).
func writeHFA(ctx context.Context, from, dir string, item RasterItem, p warpPlan, tmp string, progress func(float64)) error {
	return copyTo(ctx, from, dir, item.Name+".img", tmp, []string{"-of", "HFA", "-co", "COMPRESSED=YES"}, progress)
}

// writeJPEG writes a JPEG (quality 85) with a world file; the CRS goes to
// its .aux.xml. JPEG holds one or three 8-bit bands: the first three data
// bands are written (the first one when there are fewer than three), a
// palette is expanded to RGB, other data types are scaled to bytes, and
// the alpha band becomes the JPEG's internal mask.
func writeJPEG(ctx context.Context, from, dir string, item RasterItem, p warpPlan, tmp string, progress func(float64)) error {
	sw := []string{"-of", "JPEG", "-co", "QUALITY=85", "-co", "WORLDFILE=YES"}
	switch {
	case p.dataBands >= 3:
		sw = append(sw, "-b", "1", "-b", "2", "-b", "3")
	case p.paletted:
		sw = append(sw, "-b", "1", "-expand", "rgb")
	default:
		sw = append(sw, "-b", "1")
	}
	if p.alpha {
		sw = append(sw, "-mask", strconv.Itoa(len(p.types)))
	}
	sw = append(sw, toBytes(p, outBands(p), godal.Byte)...)
	return copyTo(ctx, from, dir, item.Name+".jpg", tmp, sw, progress)
}

// writePNG writes a PNG with a world file; the CRS goes to its .aux.xml.
// PNG holds grey or RGB, with alpha, in 8 or 16 bits: the first three
// data bands (or the first), then the alpha band; other data types are
// scaled to bytes.
func writePNG(ctx context.Context, from, dir string, item RasterItem, p warpPlan, tmp string, progress func(float64)) error {
	sw := []string{"-of", "PNG", "-co", "WORLDFILE=YES"}
	if p.dataBands >= 3 {
		sw = append(sw, "-b", "1", "-b", "2", "-b", "3")
	} else {
		sw = append(sw, "-b", "1")
	}
	if p.alpha {
		sw = append(sw, "-b", strconv.Itoa(len(p.types)))
	}
	sw = append(sw, toBytes(p, outBands(p), godal.Byte, godal.UInt16)...)
	return copyTo(ctx, from, dir, item.Name+".png", tmp, sw, progress)
}

// writeJP2 writes JPEG2000 with OpenJPEG, lossy (GDAL's default quality:
// a quarter of the raw size) or lossless (reversible wavelet); the CRS
// travels in its GeoJP2 and GMLJP2 boxes. Integer types up to 32 bits are
// kept, floating-point imagery is scaled to bytes.
func writeJP2(lossless bool) rasterOutput {
	return func(ctx context.Context, from, dir string, item RasterItem, p warpPlan, tmp string, progress func(float64)) error {
		sw := []string{"-of", "JP2OpenJPEG"}
		if lossless {
			sw = append(sw, "-co", "REVERSIBLE=YES", "-co", "QUALITY=100")
		}
		sw = append(sw, toBytes(p, p.dataBands, godal.Byte, godal.UInt16, godal.Int16, godal.UInt32, godal.Int32)...)
		return copyTo(ctx, from, dir, item.Name+".jp2", tmp, sw, progress)
	}
}

// writeASCIIGrid writes an ASCII grid per band (ASCII grids hold one):
// "<name>.asc" for a one-band grid, "<name>.band<i>.asc" for each band of
// a multi-band grid, each with its .prj. Values keep enough significant
// digits to read back exactly.
func writeASCIIGrid(ctx context.Context, from, dir string, item RasterItem, p warpPlan, tmp string, progress func(float64)) error {
	n := len(p.types)
	for i := 1; i <= n; i++ {
		name := item.Name + ".asc"
		if n > 1 {
			name = item.Name + ".band" + strconv.Itoa(i) + ".asc"
		}
		sw := []string{"-of", "AAIGrid", "-b", strconv.Itoa(i)}
		switch p.types[i-1] {
		case godal.Float32:
			sw = append(sw, "-co", "SIGNIFICANT_DIGITS=9")
		case godal.Float64:
			sw = append(sw, "-co", "SIGNIFICANT_DIGITS=17")
		}
		from0, to0 := float64(i-1)/float64(n), float64(i)/float64(n)
		step := func(s float64) { progress(from0 + (to0-from0)*s) }
		if err := copyTo(ctx, from, dir, name, tmp, sw, step); err != nil {
			return err
		}
	}
	return nil
}

// toBytes gives the switches that write bytes, scaling the first n
// output bands (the data bands; an alpha band is a byte already) from
// their minimum and maximum, when a data band's type is not allowed.
func toBytes(p warpPlan, n int, allowed ...godal.DataType) []string {
	for _, t := range p.types[:p.dataBands] {
		if !slices.Contains(allowed, t) {
			sw := []string{"-ot", "Byte"}
			for i := 1; i <= n; i++ {
				sw = append(sw, "-scale_"+strconv.Itoa(i))
			}
			return sw
		}
	}
	return nil
}

// outBands is the number of data bands written where a format holds
// grey or RGB: three when there are three or more, else one.
func outBands(p warpPlan) int {
	if p.dataBands >= 3 {
		return 3
	}
	return 1
}
