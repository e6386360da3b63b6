package exportfile

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"
)

// gridNodata is the nodata value of the test grid.
const gridNodata = -9999

// testRaster describes a raster a test generates.
type testRaster struct {
	epsg  int
	geo   [6]float64
	w, h  int
	bands int
	dtype godal.DataType
	// value gives band b's value at column x, row y.
	value func(b, x, y int) float64
	// nodata, when set, is written as every band's nodata value.
	nodata *float64
}

// nzGrid is a float32 grid in EPSG:2193 over Auckland (100 m cells) with
// a block of nodata cells and fractional values.
func nzGrid() testRaster {
	nd := float64(gridNodata)
	return testRaster{epsg: 2193, geo: [6]float64{1740000, 100, 0, 5940000, 0, -100},
		w: 400, h: 300, bands: 1, dtype: godal.Float32, nodata: &nd,
		value: func(_, x, y int) float64 {
			if x > 50 && x < 90 && y > 40 && y < 80 {
				return gridNodata
			}
			return float64(y)*10 + float64(x)*0.25 + 0.125
		}}
}

// wellingtonRGB is an RGB byte raster in EPSG:4326 over Wellington, with
// no nodata.
func wellingtonRGB() testRaster {
	return testRaster{epsg: 4326, geo: [6]float64{174.70, 0.0005, 0, -41.20, 0, -0.0005},
		w: 300, h: 200, bands: 3, dtype: godal.Byte,
		value: func(b, x, y int) float64 {
			return float64((x*(b+1) + y*(3-b) + (x*y)%7) % 256)
		}}
}

// write writes the raster as a COG at path (as imports store them).
func (r testRaster) write(t testing.TB, path string) {
	t.Helper()
	registerGDAL()
	tmp := path + ".src.tif"
	ds, err := godal.Create(godal.GTiff, tmp, r.bands, r.dtype, r.w, r.h)
	if err != nil {
		t.Fatal(err)
	}
	sr, err := godal.NewSpatialRefFromEPSG(r.epsg)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	if err := ds.SetSpatialRef(sr); err != nil {
		t.Fatal(err)
	}
	if err := ds.SetGeoTransform(r.geo); err != nil {
		t.Fatal(err)
	}
	for bi, b := range ds.Bands() {
		buf := make([]float64, r.w*r.h)
		for y := 0; y < r.h; y++ {
			for x := 0; x < r.w; x++ {
				buf[y*r.w+x] = r.value(bi, x, y)
			}
		}
		if err := b.Write(0, 0, buf, r.w, r.h); err != nil {
			t.Fatal(err)
		}
		if r.nodata != nil {
			if err := b.SetNoData(*r.nodata); err != nil {
				t.Fatal(err)
			}
		}
		if r.bands == 3 {
			ci := []godal.ColorInterp{godal.CIRed, godal.CIGreen, godal.CIBlue}[bi]
			if err := b.SetColorInterp(ci); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err := ds.Translate(path, []string{"-of", "COG", "-co", "COMPRESS=DEFLATE"})
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	ds.Close()
	os.Remove(tmp)
}

// lonLat converts a point of the raster's CRS to EPSG:4326.
func (r testRaster) lonLat(t testing.TB, x, y float64) (float64, float64) {
	t.Helper()
	if r.epsg == 4326 {
		return x, y
	}
	src, _ := godal.NewSpatialRefFromEPSG(r.epsg)
	dst, _ := godal.NewSpatialRefFromEPSG(4326)
	defer src.Close()
	defer dst.Close()
	trn, err := godal.NewTransform(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer trn.Close()
	xs, ys := []float64{x}, []float64{y}
	if err := trn.TransformEx(xs, ys, nil, nil); err != nil {
		t.Fatal(err)
	}
	return xs[0], ys[0]
}

// ring is a closed polygon ring of lon/lat pairs.
type ring [][2]float64

// cropRing is a pentagon inside the raster's middle, in EPSG:4326,
// rounded to 1e-6 degrees.
func (r testRaster) cropRing(t testing.TB) ring {
	t.Helper()
	at := func(fx, fy float64) [2]float64 {
		x := r.geo[0] + fx*float64(r.w)*r.geo[1]
		y := r.geo[3] + fy*float64(r.h)*r.geo[5]
		lon, lat := r.lonLat(t, x, y)
		return [2]float64{math.Round(lon*1e6) / 1e6, math.Round(lat*1e6) / 1e6}
	}
	rg := ring{at(0.2, 0.3), at(0.5, 0.15), at(0.8, 0.35), at(0.7, 0.8), at(0.3, 0.7)}
	return append(rg, rg[0])
}

func (rg ring) wkt() string {
	var pts []string
	for _, p := range rg {
		pts = append(pts, fmt.Sprintf("%.6f %.6f", p[0], p[1]))
	}
	return "POLYGON((" + strings.Join(pts, ",") + "))"
}

// wkb is the ring as a WKB polygon.
func (rg ring) wkb(t testing.TB) []byte {
	t.Helper()
	g, err := godal.NewGeometryFromWKT(rg.wkt(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	b, err := g.WKB()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// geojsonFile writes the ring as a GeoJSON file for gdalwarp's -cutline.
func (rg ring) geojsonFile(t testing.TB, dir string) string {
	t.Helper()
	var pts []string
	for _, p := range rg {
		pts = append(pts, fmt.Sprintf("[%.6f,%.6f]", p[0], p[1]))
	}
	doc := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},` +
		`"geometry":{"type":"Polygon","coordinates":[[` + strings.Join(pts, ",") + `]]}}]}`
	path := filepath.Join(dir, "cut.geojson")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// distance is the distance from x, y to the ring's edges.
func (rg ring) distance(x, y float64) float64 {
	d := math.Inf(1)
	for i := 1; i < len(rg); i++ {
		ax, ay, bx, by := rg[i-1][0], rg[i-1][1], rg[i][0], rg[i][1]
		dx, dy := bx-ax, by-ay
		s := math.Max(0, math.Min(1, ((x-ax)*dx+(y-ay)*dy)/(dx*dx+dy*dy)))
		d = math.Min(d, math.Hypot(x-(ax+s*dx), y-(ay+s*dy)))
	}
	return d
}

// contains reports whether lon/lat is inside the ring (even-odd rule).
func (rg ring) contains(x, y float64) bool {
	in := false
	for i, j := 0, len(rg)-1; i < len(rg); j, i = i, i+1 {
		a, b := rg[i], rg[j]
		if (a[1] > y) != (b[1] > y) && x < (b[0]-a[0])*(y-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// gdalwarp runs the gdalwarp command line.
func gdalwarp(t testing.TB, args ...string) {
	t.Helper()
	out, err := exec.Command("gdalwarp", append([]string{"-q", "-overwrite"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdalwarp %v: %v\n%s", args, err, out)
	}
}

// opened is a raster read back whole.
type opened struct {
	w, h   int
	geo    [6]float64
	sr     *godal.SpatialRef
	bands  [][]float64
	nodata []*float64
	types  []godal.DataType
	mask   []byte // the first band's mask (255 valid, 0 masked)
}

func open(t testing.TB, path string) opened {
	t.Helper()
	// godal shows GDAL only the file itself unless told its siblings:
	// the world file, .aux.xml and .prj must be seen.
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var siblings []string
	for _, e := range entries {
		siblings = append(siblings, e.Name())
	}
	ds, err := godal.Open(path, godal.RasterOnly(), godal.SiblingFiles(siblings...))
	if err != nil {
		t.Fatalf("GDAL cannot open %s: %v", path, err)
	}
	defer ds.Close()
	st := ds.Structure()
	o := opened{w: st.SizeX, h: st.SizeY}
	if o.geo, err = ds.GeoTransform(); err != nil {
		t.Fatalf("%s has no geotransform: %v", path, err)
	}
	// ds.SpatialRef belongs to ds: keep a copy that outlives it.
	if o.sr, err = godal.NewSpatialRefFromWKT(ds.Projection()); err != nil {
		t.Fatalf("%s has no CRS: %v", path, err)
	}
	t.Cleanup(o.sr.Close)
	for i, b := range ds.Bands() {
		buf := make([]float64, o.w*o.h)
		if err := b.Read(0, 0, buf, o.w, o.h); err != nil {
			t.Fatal(err)
		}
		o.bands = append(o.bands, buf)
		o.types = append(o.types, b.Structure().DataType)
		if nd, ok := b.NoData(); ok {
			o.nodata = append(o.nodata, &nd)
		} else {
			o.nodata = append(o.nodata, nil)
		}
		if i == 0 {
			o.mask = make([]byte, o.w*o.h)
			if err := b.MaskBand().Read(0, 0, o.mask, o.w, o.h); err != nil {
				t.Fatal(err)
			}
		}
	}
	return o
}

// sameGrid fails unless a and b have the same size, geotransform and CRS.
func sameGrid(t testing.TB, what string, a, b opened) {
	t.Helper()
	if a.w != b.w || a.h != b.h {
		t.Fatalf("%s: size %dx%d, gdalwarp %dx%d", what, a.w, a.h, b.w, b.h)
	}
	for i := range a.geo {
		if math.Abs(a.geo[i]-b.geo[i]) > 1e-9*math.Max(1, math.Abs(b.geo[i])) {
			t.Fatalf("%s: geotransform %v, gdalwarp %v", what, a.geo, b.geo)
		}
	}
	if !equivalentCRS(t, a.sr, b.sr, b.geo) {
		wa, _ := a.sr.WKT()
		wb, _ := b.sr.WKT()
		t.Fatalf("%s: CRS differs:\n%s\ngdalwarp:\n%s", what, wa, wb)
	}
}

// equivalentCRS reports whether a and b are the same CRS, or hold the
// same coordinates at the origin of geo (some formats spell a CRS in
// their own words: ESRI .prj, ERDAS's own model).
func equivalentCRS(t testing.TB, a, b *godal.SpatialRef, geo [6]float64) bool {
	t.Helper()
	if a.IsSame(b) {
		return true
	}
	trn, err := godal.NewTransform(a, b)
	if err != nil {
		return false
	}
	defer trn.Close()
	x, y := []float64{geo[0]}, []float64{geo[3]}
	if err := trn.TransformEx(x, y, nil, nil); err != nil {
		return false
	}
	tol := 1e-9 * math.Max(1, math.Abs(geo[0]))
	return math.Abs(x[0]-geo[0]) <= tol && math.Abs(y[0]-geo[3]) <= tol && a.Geographic() == b.Geographic()
}

// sameCells fails unless bands 0..n-1 of a and b hold the same values.
func sameCells(t testing.TB, what string, a, b opened, n int) {
	t.Helper()
	for bi := 0; bi < n; bi++ {
		for i := range b.bands[bi] {
			if a.bands[bi][i] != b.bands[bi][i] {
				t.Fatalf("%s: band %d cell (%d,%d) = %v, gdalwarp %v", what, bi+1, i%b.w, i/b.w, a.bands[bi][i], b.bands[bi][i])
			}
		}
	}
}

// isEPSG fails unless o's CRS is EPSG:code.
func isEPSG(t testing.TB, what string, o opened, code int) {
	t.Helper()
	want, _ := godal.NewSpatialRefFromEPSG(code)
	defer want.Close()
	if !equivalentCRS(t, o.sr, want, o.geo) {
		t.Fatalf("%s: CRS is not EPSG:%d", what, code)
	}
}
