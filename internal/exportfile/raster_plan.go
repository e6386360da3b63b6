package exportfile

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/airbusgeo/godal"
)

// rasterSource is what the writer needs to know of an item's file.
type rasterSource struct {
	wkt      string
	geo      [6]float64
	w, h     int
	types    []godal.DataType
	nodata   *float64 // the first band's nodata value
	alpha    bool     // the last band is an alpha band
	paletted bool
}

// dataBands is the number of bands that are not the alpha band.
func (s rasterSource) dataBands() int {
	if s.alpha {
		return len(s.types) - 1
	}
	return len(s.types)
}

func describeSource(path string) (rasterSource, error) {
	ds, err := godal.Open(path, godal.RasterOnly(), godal.ErrLogger(failuresOnly))
	if err != nil {
		return rasterSource{}, fmt.Errorf("opening the raster: %w", err)
	}
	defer ds.Close()
	s := rasterSource{wkt: ds.Projection()}
	if s.geo, err = ds.GeoTransform(); err != nil || s.wkt == "" {
		return rasterSource{}, fmt.Errorf("the raster is not georeferenced")
	}
	st := ds.Structure()
	s.w, s.h = st.SizeX, st.SizeY
	bands := ds.Bands()
	if len(bands) == 0 {
		return rasterSource{}, fmt.Errorf("the raster has no bands")
	}
	for i, b := range bands {
		s.types = append(s.types, b.Structure().DataType)
		ci := b.ColorInterp()
		if ci == godal.CIPalette {
			s.paletted = true
		}
		if ci == godal.CIAlpha && i == len(bands)-1 && i > 0 {
			s.alpha = true
		}
	}
	if nd, ok := bands[0].NoData(); ok {
		s.nodata = &nd
	}
	return s, nil
}

// failuresOnly makes GDAL failures errors but lets warnings pass.
func failuresOnly(ec godal.ErrorCategory, code int, msg string) error {
	if ec >= godal.CE_Failure {
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// warpPlan is how an item is warped and what the warped raster holds.
type warpPlan struct {
	// warp is false when the item is copied as it is (no crop, same CRS).
	warp     bool
	switches []string
	// nodata is the warped raster's nodata value, nil when it has none
	// (imagery masked with an alpha band, or a copy without one).
	nodata *float64
	// alpha is true when the warped raster's last band is alpha.
	alpha bool
	// dataBands counts the bands that are not alpha; types are every
	// band's data type.
	dataBands int
	types     []godal.DataType
	grid      bool
	paletted  bool
}

// planWarp decides the gdalwarp switches of an item.
//
// Nodata: grids keep their nodata value; a grid without one gets the
// lowest value of its data type (the highest for unsigned types, 255 for
// bytes, -3.4028234663852886e+38 for floats) written as its nodata, since
// a grid's cells must stay values and an added band would change its
// shape. Imagery with a nodata value keeps it; imagery without one gets
// an alpha band (transparent outside the crop area and the source), as
// image viewers expect, and JPEG, which has no alpha, stores it as its
// mask.
func planWarp(src rasterSource, kind Kind, o Options, tmp string) (warpPlan, error) {
	p := warpPlan{grid: kind == KindGrid, alpha: src.alpha, nodata: src.nodata,
		dataBands: src.dataBands(), types: src.types, paletted: src.paletted}
	srcSR, err := godal.NewSpatialRefFromWKT(src.wkt)
	if err != nil {
		return p, fmt.Errorf("exportfile: the raster's CRS: %w", err)
	}
	defer srcSR.Close()
	if o.CRS != "" {
		dst, err := godal.NewSpatialRef(o.CRS)
		if err != nil {
			return p, fmt.Errorf("exportfile: unknown CRS %q", o.CRS)
		}
		p.warp = !dst.IsSame(srcSR)
		dst.Close()
	}
	var sw []string
	if len(o.Clip) > 0 {
		cutline, err := writeCutline(src, srcSR, o.Clip, tmp)
		if err != nil {
			return p, err
		}
		p.warp = true
		sw = append(sw, "-cutline", cutline, "-crop_to_cutline")
	}
	if !p.warp {
		return p, nil
	}
	if o.CRS != "" {
		sw = append(sw, "-t_srs", o.CRS)
	}
	resampling := "bilinear"
	if p.grid || src.paletted {
		resampling = "near"
	}
	sw = append(sw, "-r", resampling)
	switch {
	case p.grid || src.nodata != nil:
		nd := defaultNodata(src.types[0])
		if src.nodata != nil {
			nd = *src.nodata
		}
		p.nodata = &nd
		sw = append(sw, "-dstnodata", formatFloat(nd))
	default:
		p.alpha = true
		p.types = append(src.types[:src.dataBands():src.dataBands()], godal.Byte)
		if src.alpha {
			p.types = src.types
		}
		sw = append(sw, "-dstalpha")
	}
	sw = append(sw, "-of", "GTiff", "-co", "TILED=YES", "-co", "COMPRESS=ZSTD",
		"-co", "ZSTD_LEVEL=1", "-co", "BIGTIFF=IF_SAFER")
	p.switches = sw
	return p, nil
}

// defaultNodata is the nodata value given to a grid of type t that has
// none.
func defaultNodata(t godal.DataType) float64 {
	switch t {
	case godal.Byte:
		return 255
	case godal.UInt16:
		return math.MaxUint16
	case godal.Int16:
		return math.MinInt16
	case godal.UInt32:
		return math.MaxUint32
	case godal.Int32:
		return math.MinInt32
	}
	return -math.MaxFloat32
}

func formatFloat(v float64) string {
	if math.IsNaN(v) {
		return "nan"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// writeCutline checks the crop area (WKB, EPSG:4326) overlaps the raster
// and writes it as a GeoJSON file in tmp for gdalwarp's -cutline.
func writeCutline(src rasterSource, srcSR *godal.SpatialRef, clip []byte, tmp string) (string, error) {
	wgs84, err := godal.NewSpatialRefFromEPSG(4326)
	if err != nil {
		return "", err
	}
	defer wgs84.Close()
	area, err := godal.NewGeometryFromWKB(clip, wgs84)
	if err != nil {
		return "", fmt.Errorf("exportfile: the crop area is not valid WKB: %w", err)
	}
	defer area.Close()
	if t := area.Type(); t != godal.GTPolygon && t != godal.GTMultiPolygon {
		return "", fmt.Errorf("exportfile: the crop area must be a polygon or multipolygon, not %s", area.Name())
	}
	if overlaps, known := overlapsFootprint(src, srcSR, wgs84, area); known && !overlaps {
		return "", ErrOutsideExtent
	}
	gj, err := area.GeoJSON(godal.SignificantDigits(15))
	if err != nil {
		return "", err
	}
	path := filepath.Join(tmp, "cutline.geojson")
	doc := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":` + gj + `}]}`
	return path, os.WriteFile(path, []byte(doc), 0o644)
}

// footprintSteps is the number of points per edge of a raster's outline
// when it is reprojected (edges curve in other CRSs).
const footprintSteps = 32

// overlapsFootprint reports whether area (EPSG:4326) meets the raster's
// outline; known is false when the outline cannot be reprojected to
// EPSG:4326 (gdalwarp then decides).
func overlapsFootprint(src rasterSource, srcSR, wgs84 *godal.SpatialRef, area *godal.Geometry) (overlaps, known bool) {
	var pts []string
	at := func(px, py float64) {
		x := src.geo[0] + px*src.geo[1] + py*src.geo[2]
		y := src.geo[3] + px*src.geo[4] + py*src.geo[5]
		pts = append(pts, formatFloat(x)+" "+formatFloat(y))
	}
	w, h := float64(src.w), float64(src.h)
	for i := 0; i < footprintSteps; i++ {
		at(w*float64(i)/footprintSteps, 0)
	}
	for i := 0; i < footprintSteps; i++ {
		at(w, h*float64(i)/footprintSteps)
	}
	for i := 0; i < footprintSteps; i++ {
		at(w-w*float64(i)/footprintSteps, h)
	}
	for i := 0; i < footprintSteps; i++ {
		at(0, h-h*float64(i)/footprintSteps)
	}
	pts = append(pts, pts[0])
	outline, err := godal.NewGeometryFromWKT("POLYGON(("+strings.Join(pts, ",")+"))", srcSR)
	if err != nil {
		return false, false
	}
	defer outline.Close()
	if !srcSR.IsSame(wgs84) {
		if err := outline.Reproject(wgs84); err != nil {
			return false, false
		}
	}
	ok, err := outline.Intersects(area)
	if err != nil {
		return false, false
	}
	return ok, true
}

// progress passes a writer's share done on to Options.Progress, never
// going backwards.
type progress struct {
	fn   func(float64)
	last float64
}

func newProgress(fn func(float64)) *progress { return &progress{fn: fn, last: -1} }

func (p *progress) report(share float64) {
	if p.fn == nil || share <= p.last {
		return
	}
	p.last = share
	p.fn(min(max(share, 0), 1))
}

// stage maps a step's own share (0..1) into [from, to] of the item.
func (p *progress) stage(from, to float64) func(float64) {
	return func(s float64) { p.report(from + (to-from)*s) }
}
