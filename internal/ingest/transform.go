package ingest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/airbusgeo/godal"
)

// EPSG4326 is the CRS of Datasource.Extent (lon/lat axis order).
const EPSG4326 = "EPSG:4326"

// newSpatialRef builds a spatial reference from "EPSG:n" or WKT only; other
// user inputs (URLs, file names) are refused so GDAL never fetches
// anything. godal sets the traditional GIS (x=lon, y=lat) axis order.
func newSpatialRef(crs string) (*godal.SpatialRef, error) {
	s := strings.TrimSpace(crs)
	if code, ok := strings.CutPrefix(strings.ToUpper(s), "EPSG:"); ok {
		n, err := strconv.Atoi(code)
		if err != nil {
			return nil, fmt.Errorf("ingest: bad CRS %q", crs)
		}
		return godal.NewSpatialRefFromEPSG(n)
	}
	if s == "" || !strings.Contains(s, "[") {
		return nil, fmt.Errorf("ingest: CRS %q is neither EPSG:n nor WKT", short(crs))
	}
	return godal.NewSpatialRefFromWKT(s)
}

// Transformer reprojects geometries and boxes between two CRSs. It is not
// safe for concurrent use; Close it when done.
type Transformer struct {
	src, dst *godal.SpatialRef
	trn      *godal.Transform
}

// NewTransformer prepares a reprojection from one CRS to another ("EPSG:n"
// or WKT). EPSG:4326 output is in lon/lat order.
func NewTransformer(fromCRS, toCRS string) (*Transformer, error) {
	src, err := newSpatialRef(fromCRS)
	if err != nil {
		return nil, err
	}
	dst, err := newSpatialRef(toCRS)
	if err != nil {
		src.Close()
		return nil, err
	}
	trn, err := godal.NewTransform(src, dst)
	if err != nil {
		src.Close()
		dst.Close()
		return nil, fmt.Errorf("ingest: no transformation from %s to %s: %w", short(fromCRS), short(toCRS), err)
	}
	return &Transformer{src: src, dst: dst, trn: trn}, nil
}

// Close releases the GDAL objects.
func (t *Transformer) Close() {
	t.trn.Close()
	t.src.Close()
	t.dst.Close()
}

// WKB reprojects a WKB geometry and returns little-endian ISO WKB; nil
// stays nil.
func (t *Transformer) WKB(wkb []byte) ([]byte, error) {
	if len(wkb) == 0 {
		return nil, nil
	}
	g, err := godal.NewGeometryFromWKB(wkb, t.src)
	if err != nil {
		return nil, fmt.Errorf("ingest: bad WKB: %w", err)
	}
	defer g.Close()
	if err := g.Transform(t.trn); err != nil {
		return nil, fmt.Errorf("ingest: reprojection failed: %w", err)
	}
	return g.WKB()
}

// Bounds reprojects a box [minx, miny, maxx, maxy], densifying its edges so
// curved edges in the target CRS are covered.
func (t *Transformer) Bounds(b [4]float64) ([4]float64, error) {
	xs, ys := edges(b)
	ok := make([]bool, len(xs))
	if err := t.trn.TransformEx(xs, ys, nil, ok); err != nil && !anyTrue(ok) {
		return [4]float64{}, fmt.Errorf("ingest: cannot reproject extent: %w", err)
	}
	out := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	n := 0
	for i := range xs {
		if !ok[i] || math.IsNaN(xs[i]) || math.IsInf(xs[i], 0) || math.IsNaN(ys[i]) || math.IsInf(ys[i], 0) {
			continue
		}
		n++
		out[0], out[1] = math.Min(out[0], xs[i]), math.Min(out[1], ys[i])
		out[2], out[3] = math.Max(out[2], xs[i]), math.Max(out[3], ys[i])
	}
	if n == 0 {
		return [4]float64{}, errors.New("ingest: extent cannot be reprojected")
	}
	return out, nil
}

// Within reports whether every point of the box's densified edges
// reprojects to coordinates no further than limit from the target CRS's
// origin: false when part of the box has no place in it (the far pole of
// a polar projection lands at 4e23 m).
func (t *Transformer) Within(b [4]float64, limit float64) bool {
	xs, ys := edges(b)
	ok := make([]bool, len(xs))
	_ = t.trn.TransformEx(xs, ys, nil, ok)
	for i := range xs {
		if !ok[i] || !(math.Abs(xs[i]) <= limit) || !(math.Abs(ys[i]) <= limit) {
			return false
		}
	}
	return true
}

// edges are points along a box's edges, corners included.
func edges(b [4]float64) (xs, ys []float64) {
	const steps = 20
	for i := 0; i <= steps; i++ {
		f := float64(i) / steps
		x := b[0] + f*(b[2]-b[0])
		y := b[1] + f*(b[3]-b[1])
		xs = append(xs, x, x, b[0], b[2])
		ys = append(ys, b[1], b[3], y, y)
	}
	return xs, ys
}

func anyTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}

// Reproject is a one-shot helper around Transformer.WKB; use a Transformer
// for many geometries.
func Reproject(wkb []byte, fromCRS, toCRS string) ([]byte, error) {
	t, err := NewTransformer(fromCRS, toCRS)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return t.WKB(wkb)
}

// crsOf names a WKT CRS: "EPSG:n" when GDAL can identify it, else the WKT.
func crsOf(wkt string) string {
	if wkt == "" {
		return ""
	}
	sr, err := godal.NewSpatialRefFromWKT(wkt)
	if err != nil {
		return wkt
	}
	defer sr.Close()
	if epsg := epsgOf(sr); epsg != "" {
		return epsg
	}
	if sr.AutoIdentifyEPSG() == nil {
		if epsg := epsgOf(sr); epsg != "" {
			return epsg
		}
	}
	return wkt
}

func epsgOf(sr *godal.SpatialRef) string {
	if strings.EqualFold(sr.AuthorityName(""), "EPSG") {
		if code := sr.AuthorityCode(""); code != "" {
			return "EPSG:" + code
		}
	}
	return ""
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
