package exportfile

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/airbusgeo/godal"
)

func format(t testing.TB, k Kind, mime string) Format {
	t.Helper()
	f, ok := FormatByMIME(k, mime)
	if !ok {
		t.Fatalf("no %s format %s", k, mime)
	}
	return f
}

// TestGridCropMatchesGdalwarp crops the EPSG:2193 float32 grid by a
// polygon and reprojects it to EPSG:4326 as GeoTIFF, and checks it cell by
// cell against gdalwarp run with the same switches; cells outside the
// polygon are nodata.
func TestGridCropMatchesGdalwarp(t *testing.T) {
	dir := t.TempDir()
	src := nzGrid()
	srcPath := filepath.Join(dir, "grid.tif")
	src.write(t, srcPath)
	crop := src.cropRing(t)

	ref := filepath.Join(t.TempDir(), "ref.tif")
	gdalwarp(t, "-t_srs", "EPSG:4326", "-cutline", crop.geojsonFile(t, t.TempDir()), "-crop_to_cutline",
		"-dstnodata", "-9999", "-r", "near", srcPath, ref)

	out := t.TempDir()
	var shares []float64
	res, err := WriteRaster(context.Background(), out,
		RasterItem{Name: "nz-dem", Kind: KindGrid, Path: srcPath, MetadataXML: []byte("<md/>"), LicenseText: "CC-BY 4.0"},
		format(t, KindGrid, MIMEGeoTIFF),
		Options{CRS: "EPSG:4326", Clip: crop.wkb(t), Progress: func(s float64) { shares = append(shares, s) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"nz-dem.license.txt", "nz-dem.tif", "nz-dem.xml"}
	if !slices.Equal(res.Files, want) {
		t.Fatalf("files %v, want %v", res.Files, want)
	}
	if len(shares) == 0 || shares[len(shares)-1] != 1 || !slices.IsSorted(shares) {
		t.Fatalf("progress %v: want rising shares ending at 1", shares)
	}
	got, exp := open(t, filepath.Join(out, "nz-dem.tif")), open(t, ref)
	sameGrid(t, "GeoTIFF", got, exp)
	isEPSG(t, "GeoTIFF", got, 4326)
	sameCells(t, "GeoTIFF", got, exp, 1)
	if got.nodata[0] == nil || *got.nodata[0] != gridNodata {
		t.Fatalf("nodata %v, want %v", got.nodata[0], gridNodata)
	}
	// gdalwarp masks source cells whose centre is outside the polygon, so
	// an output cell up to a source cell (about 0.0012° here) outside the
	// edge may hold a value; beyond that, every cell is nodata.
	tol := 1.5 * math.Hypot(got.geo[1], got.geo[5])
	inside, outside := 0, 0
	for y := 0; y < got.h; y++ {
		for x := 0; x < got.w; x++ {
			lon, lat := got.geo[0]+(float64(x)+0.5)*got.geo[1], got.geo[3]+(float64(y)+0.5)*got.geo[5]
			v := got.bands[0][y*got.w+x]
			if !crop.contains(lon, lat) && crop.distance(lon, lat) > tol {
				outside++
				if v != gridNodata {
					t.Fatalf("cell (%d,%d) at %f,%f is outside the crop area but holds %v", x, y, lon, lat, v)
				}
			} else if v != gridNodata {
				inside++
			}
		}
	}
	if inside == 0 || outside == 0 {
		t.Fatalf("%d valued cells inside, %d cells outside: the crop did not cut", inside, outside)
	}
	md, _ := os.ReadFile(filepath.Join(out, "nz-dem.xml"))
	lic, _ := os.ReadFile(filepath.Join(out, "nz-dem.license.txt"))
	if string(md) != "<md/>" || string(lic) != "CC-BY 4.0" {
		t.Fatalf("metadata %q, licence %q", md, lic)
	}
}

// TestGridFormatsHoldTheCroppedGrid writes the cropped, reprojected grid in
// every grid format; each opens in GDAL with its CRS and the same cells as
// gdalwarp's output.
func TestGridFormatsHoldTheCroppedGrid(t *testing.T) {
	dir := t.TempDir()
	src := nzGrid()
	srcPath := filepath.Join(dir, "grid.tif")
	src.write(t, srcPath)
	crop := src.cropRing(t)
	ref := filepath.Join(t.TempDir(), "ref.tif")
	gdalwarp(t, "-t_srs", "EPSG:3857", "-cutline", crop.geojsonFile(t, t.TempDir()), "-crop_to_cutline",
		"-dstnodata", "-9999", "-r", "near", srcPath, ref)
	exp := open(t, ref)

	mains := map[string]string{MIMEGeoTIFF: "g.tif", MIMEASCIIGrid: "g.asc", MIMEErdasImagine: "g.img"}
	if len(Formats(KindGrid)) != len(mains) {
		t.Fatalf("grid formats %d, tested %d", len(Formats(KindGrid)), len(mains))
	}
	for _, f := range Formats(KindGrid) {
		t.Run(f.Display, func(t *testing.T) {
			out := t.TempDir()
			res, err := WriteRaster(context.Background(), out, RasterItem{Name: "g", Kind: KindGrid, Path: srcPath},
				f, Options{CRS: "EPSG:3857", Clip: crop.wkb(t)})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(res.Files, mains[f.MIME]) {
				t.Fatalf("files %v lack %s", res.Files, mains[f.MIME])
			}
			got := open(t, filepath.Join(out, mains[f.MIME]))
			sameGrid(t, f.Display, got, exp)
			isEPSG(t, f.Display, got, 3857)
			sameCells(t, f.Display, got, exp, 1)
			if got.nodata[0] == nil || *got.nodata[0] != gridNodata {
				t.Fatalf("nodata %v", got.nodata[0])
			}
		})
	}
}

// TestASCIIGridWritesOneFilePerBand writes a two-band grid without a
// nodata value: two .asc files, each with its .prj, and cells outside
// the crop area hold the nodata value chosen for float32.
func TestASCIIGridWritesOneFilePerBand(t *testing.T) {
	dir := t.TempDir()
	src := nzGrid()
	src.bands, src.nodata = 2, nil
	srcPath := filepath.Join(dir, "grid2.tif")
	src.write(t, srcPath)
	crop := src.cropRing(t)
	out := t.TempDir()
	res, err := WriteRaster(context.Background(), out, RasterItem{Name: "two", Kind: KindGrid, Path: srcPath},
		format(t, KindGrid, MIMEASCIIGrid), Options{Clip: crop.wkb(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"two.band1.asc", "two.band1.prj", "two.band2.asc", "two.band2.prj"} {
		if !slices.Contains(res.Files, f) {
			t.Fatalf("files %v lack %s", res.Files, f)
		}
	}
	for _, f := range []string{"two.band1.asc", "two.band2.asc"} {
		got := open(t, filepath.Join(out, f))
		isEPSG(t, f, got, 2193)
		// The .asc spells it with float32's 9 digits: the same float32.
		if got.nodata[0] == nil || float32(*got.nodata[0]) != -math.MaxFloat32 {
			t.Fatalf("%s: nodata %v, want %v", f, *got.nodata[0], -math.MaxFloat32)
		}
		if float32(got.bands[0][0]) != -math.MaxFloat32 {
			t.Fatalf("%s: corner cell outside the pentagon holds %v", f, got.bands[0][0])
		}
	}
}

// TestImageryCropMatchesGdalwarp crops the EPSG:4326 RGB raster and
// reprojects it to EPSG:2193: the GeoTIFF has an alpha band (the source
// has no nodata) and equals gdalwarp's -dstalpha output; every imagery
// format opens in GDAL with its CRS and gdalwarp's size and
// geotransform, and the lossless ones hold the same cells.
func TestImageryCropMatchesGdalwarp(t *testing.T) {
	dir := t.TempDir()
	src := wellingtonRGB()
	srcPath := filepath.Join(dir, "rgb.tif")
	src.write(t, srcPath)
	crop := src.cropRing(t)
	ref := filepath.Join(t.TempDir(), "ref.tif")
	gdalwarp(t, "-t_srs", "EPSG:2193", "-cutline", crop.geojsonFile(t, t.TempDir()), "-crop_to_cutline",
		"-dstalpha", "-r", "bilinear", srcPath, ref)
	exp := open(t, ref)
	if len(exp.bands) != 4 {
		t.Fatalf("gdalwarp wrote %d bands", len(exp.bands))
	}

	cases := []struct {
		mime, main string
		lossless   bool
		bands      int
	}{
		{MIMEGeoTIFF, "img.tif", true, 4},
		{MIMEJPEG, "img.jpg", false, 3},
		{MIMEPNG, "img.png", true, 4},
		{MIMEJPEG2000, "img.jp2", false, 4},
		{MIMEJPEG2000Lossless, "img.jp2", true, 4},
		{MIMEErdasImagine, "img.img", true, 4},
	}
	if len(Formats(KindRaster)) != len(cases) {
		t.Fatalf("raster formats %d, tested %d", len(Formats(KindRaster)), len(cases))
	}
	for _, c := range cases {
		f := format(t, KindRaster, c.mime)
		t.Run(f.Display, func(t *testing.T) {
			out := t.TempDir()
			res, err := WriteRaster(context.Background(), out, RasterItem{Name: "img", Kind: KindRaster, Path: srcPath},
				f, Options{CRS: "EPSG:2193", Clip: crop.wkb(t)})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(res.Files, c.main) {
				t.Fatalf("files %v lack %s", res.Files, c.main)
			}
			got := open(t, filepath.Join(out, c.main))
			sameGrid(t, f.Display, got, exp)
			isEPSG(t, f.Display, got, 2193)
			if len(got.bands) != c.bands {
				t.Fatalf("%d bands, want %d", len(got.bands), c.bands)
			}
			if c.lossless {
				sameCells(t, f.Display, got, exp, c.bands)
			}
			// The corner cell is outside the pentagon: transparent, or
			// masked in JPEG.
			if c.bands == 4 && got.bands[3][0] != 0 {
				t.Fatalf("corner alpha %v, want 0", got.bands[3][0])
			}
			if c.mime == MIMEJPEG && got.mask[0] != 0 {
				t.Fatalf("corner mask %v, want 0", got.mask[0])
			}
			centre := (got.h/2)*got.w + got.w/2
			if got.mask[centre] == 0 {
				t.Fatalf("the centre cell is masked")
			}
		})
	}
}

// TestRasterWithoutCropOrCRSIsCopied writes the grid with neither a crop
// nor a CRS: the same grid, CRS and cells as the source.
func TestRasterWithoutCropOrCRSIsCopied(t *testing.T) {
	dir := t.TempDir()
	src := nzGrid()
	srcPath := filepath.Join(dir, "grid.tif")
	src.write(t, srcPath)
	out := t.TempDir()
	if _, err := WriteRaster(context.Background(), out, RasterItem{Name: "g", Kind: KindGrid, Path: srcPath},
		format(t, KindGrid, MIMEErdasImagine), Options{CRS: "EPSG:2193"}); err != nil {
		t.Fatal(err)
	}
	got, exp := open(t, filepath.Join(out, "g.img")), open(t, srcPath)
	sameGrid(t, "copy", got, exp)
	sameCells(t, "copy", got, exp, 1)
}

// TestCropOutsideTheRasterIsErrOutsideExtent crops the NZ grid by a
// polygon in Europe.
func TestCropOutsideTheRasterIsErrOutsideExtent(t *testing.T) {
	dir := t.TempDir()
	src := nzGrid()
	srcPath := filepath.Join(dir, "grid.tif")
	src.write(t, srcPath)
	europe := ring{{2, 48}, {3, 48}, {3, 49}, {2, 49}, {2, 48}}
	out := t.TempDir()
	_, err := WriteRaster(context.Background(), out, RasterItem{Name: "g", Kind: KindGrid, Path: srcPath},
		format(t, KindGrid, MIMEGeoTIFF), Options{CRS: "EPSG:4326", Clip: europe.wkb(t)})
	if !errors.Is(err, ErrOutsideExtent) {
		t.Fatalf("err %v, want ErrOutsideExtent", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("left %d files behind", len(entries))
	}
}

// TestRasterRejectsOtherKinds: a grid format refuses imagery and vector
// data with a reason.
func TestRasterRejectsOtherKinds(t *testing.T) {
	for _, f := range Formats(KindGrid) {
		if reason, ok := f.Accepts(KindVector, "point"); ok || reason == "" {
			t.Fatalf("%s accepts a vector layer", f.Display)
		}
		if _, ok := f.Accepts(KindGrid, ""); !ok {
			t.Fatalf("%s refuses a grid", f.Display)
		}
	}
	if _, ok := FormatByMIME(KindGrid, MIMEJPEG); ok {
		t.Fatal("JPEG is offered for grids")
	}
	if _, err := WriteRaster(context.Background(), t.TempDir(), RasterItem{Name: "x", Kind: KindRaster, Path: "/nonexistent"},
		format(t, KindGrid, MIMEGeoTIFF), Options{}); err == nil {
		t.Fatal("a grid format wrote imagery")
	}
}

// TestRasterCancelStopsMidWrite cancels a large reprojection once it has
// reported progress: WriteRaster returns context.Canceled (it did not run
// to the end) and leaves no temporary files.
func TestRasterCancelStopsMidWrite(t *testing.T) {
	dir := t.TempDir()
	registerGDAL()
	srcPath := filepath.Join(dir, "big.tif")
	ds, err := godal.Create(godal.GTiff, srcPath, 1, godal.Float32, 12000, 12000,
		godal.CreationOption("TILED=YES", "SPARSE_OK=YES", "COMPRESS=DEFLATE"))
	if err != nil {
		t.Fatal(err)
	}
	sr, _ := godal.NewSpatialRefFromEPSG(2193)
	_ = ds.SetSpatialRef(sr)
	sr.Close()
	_ = ds.SetGeoTransform([6]float64{1500000, 10, 0, 6000000, 0, -10})
	ds.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := t.TempDir()
	_, err = WriteRaster(ctx, out, RasterItem{Name: "big", Kind: KindGrid, Path: srcPath},
		format(t, KindGrid, MIMEGeoTIFF), Options{CRS: "EPSG:4326", Progress: func(s float64) {
			if s > 0 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.IsDir() {
			t.Fatalf("left the temporary folder %s", e.Name())
		}
	}
}
