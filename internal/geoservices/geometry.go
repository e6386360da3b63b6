package geoservices

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"

	"github.com/geopub/geopub/internal/ogcfeatures"
)

// SR is a spatial reference by well-known id: an EPSG code, with Esri's
// Web Mercator ids (102100, 102113, 900913) read as 3857. 4326 is the
// storage CRS, longitude first as Esri gives it.
type SR struct{ WKID int }

// WGS84 is the spatial reference layers are given in.
var WGS84 = SR{WKID: 4326}

// Doc is the spatialReference object.
func (sr SR) Doc() map[string]int {
	if sr.WKID == 3857 {
		return map[string]int{"wkid": 102100, "latestWkid": 3857}
	}
	return map[string]int{"wkid": sr.WKID, "latestWkid": sr.WKID}
}

// ParseSR reads a wkid ("4326") or a spatialReference JSON object
// ({"wkid": 102100} or {"latestWkid": 3857}).
func ParseSR(s string) (SR, error) {
	s = strings.TrimSpace(s)
	var n int
	if strings.HasPrefix(s, "{") {
		var d struct {
			WKID       *int            `json:"wkid"`
			LatestWKID *int            `json:"latestWkid"`
			WKT        json.RawMessage `json:"wkt"`
		}
		if err := json.Unmarshal([]byte(s), &d); err != nil {
			return SR{}, errors.New("not a spatialReference object")
		}
		switch {
		case d.LatestWKID != nil:
			n = *d.LatestWKID
		case d.WKID != nil:
			n = *d.WKID
		default:
			return SR{}, errors.New("give a spatial reference by wkid (WKT is not read)")
		}
	} else {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			return SR{}, fmt.Errorf("%q is not a wkid", clip(s))
		}
	}
	return srOf(n)
}

func srOf(n int) (SR, error) {
	switch n {
	case 102100, 102113, 900913, 3857:
		return SR{3857}, nil
	case 4326:
		return WGS84, nil
	}
	if n <= 0 || n > 1<<30 {
		return SR{}, fmt.Errorf("wkid %d is not a spatial reference this server knows", n)
	}
	if _, err := ogcfeatures.ParseCRS("EPSG:" + strconv.Itoa(n)); err != nil {
		return SR{}, fmt.Errorf("wkid %d is not a spatial reference this server knows", n)
	}
	return SR{n}, nil
}

// Projector converts between CRS84 and sr, easting first both ways. Not
// safe for concurrent use; Close it.
type Projector struct {
	t    *ogcfeatures.Transformer
	swap bool
}

// Projector returns nil for WGS84 (nothing to do).
func (sr SR) Projector() (*Projector, error) {
	if sr.WKID == 4326 || sr.WKID == 0 {
		return nil, nil
	}
	c := ogcfeatures.CRS{EPSG: sr.WKID}
	t, err := ogcfeatures.NewTransformer(c)
	if err != nil {
		return nil, err
	}
	return &Projector{t: t, swap: c.NorthingFirst()}, nil
}

// Close frees the transformer.
func (p *Projector) Close() {
	if p != nil {
		p.t.Close()
	}
}

// Forward converts CRS84 coordinates to the SR in place.
func (p *Projector) Forward(g geom.T) error {
	if p == nil || g == nil {
		return nil
	}
	if c, ok := g.(*geom.GeometryCollection); ok {
		for _, m := range c.Geoms() {
			if err := p.Forward(m); err != nil {
				return err
			}
		}
		return nil
	}
	flat, st := g.FlatCoords(), g.Stride()
	if err := p.t.Forward(flat, st); err != nil {
		return err
	}
	if p.swap {
		swapXY(flat, st)
	}
	return nil
}

// inverse converts the SR's coordinates to CRS84 in place.
func (p *Projector) inverse(flat []float64, st int) error {
	if p.swap {
		swapXY(flat, st)
	}
	return p.t.Inverse(flat, st)
}

func swapXY(flat []float64, st int) {
	for i := 0; i+1 < len(flat); i += st {
		flat[i], flat[i+1] = flat[i+1], flat[i]
	}
}

// toCRS84 converts g, given in sr, to CRS84 in place.
func (sr SR) toCRS84(g geom.T) error {
	p, err := sr.Projector()
	if err != nil {
		return err
	}
	if p == nil {
		return nil
	}
	defer p.Close()
	if err := p.inverse(g.FlatCoords(), g.Stride()); err != nil {
		return errors.New("its coordinates are outside the area of its spatial reference")
	}
	return nil
}

// esriGeometry is the union of the Esri JSON geometry objects.
type esriGeometry struct {
	X, Y                   *float64
	XMin, YMin, XMax, YMax *float64
	Points                 [][]float64
	Paths, Rings           [][][]float64
	SpatialReference       json.RawMessage
}

func (g *esriGeometry) UnmarshalJSON(b []byte) error {
	var raw struct {
		X                *float64        `json:"x"`
		Y                *float64        `json:"y"`
		XMin             *float64        `json:"xmin"`
		YMin             *float64        `json:"ymin"`
		XMax             *float64        `json:"xmax"`
		YMax             *float64        `json:"ymax"`
		Points           [][]float64     `json:"points"`
		Paths            [][][]float64   `json:"paths"`
		Rings            [][][]float64   `json:"rings"`
		SpatialReference json.RawMessage `json:"spatialReference"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*g = esriGeometry{raw.X, raw.Y, raw.XMin, raw.YMin, raw.XMax, raw.YMax, raw.Points, raw.Paths, raw.Rings, raw.SpatialReference}
	return nil
}

// ParseGeometry reads a query's geometry of geometryType (envelope when
// empty): "xmin,ymin,xmax,ymax", "x,y" or Esri JSON. sr is the geometry's
// own spatialReference, else WGS84.
func ParseGeometry(s, typ string) (geom.T, SR, error) {
	sr := WGS84
	if typ == "" {
		typ = "esriGeometryEnvelope"
	}
	if !strings.HasPrefix(s, "{") {
		nums, err := numbers(s)
		if err != nil {
			return nil, sr, err
		}
		switch {
		case typ == "esriGeometryEnvelope" && len(nums) == 4:
			return envelope(nums[0], nums[1], nums[2], nums[3])
		case typ == "esriGeometryPoint" && len(nums) == 2:
			return geom.NewPointFlat(geom.XY, nums), sr, nil
		}
		return nil, sr, fmt.Errorf("give %s as JSON (or an envelope as xmin,ymin,xmax,ymax, a point as x,y)", clip(typ))
	}
	var g esriGeometry
	if err := json.Unmarshal([]byte(s), &g); err != nil {
		return nil, sr, errors.New("not an Esri JSON geometry")
	}
	if len(g.SpatialReference) > 0 && string(g.SpatialReference) != "null" {
		var err error
		if sr, err = ParseSR(string(g.SpatialReference)); err != nil {
			return nil, sr, err
		}
	}
	var out geom.T
	var err error
	switch typ {
	case "esriGeometryEnvelope":
		if g.XMin == nil || g.YMin == nil || g.XMax == nil || g.YMax == nil {
			return nil, sr, errors.New("an envelope needs xmin, ymin, xmax and ymax")
		}
		var e geom.T
		e, _, err = envelope(*g.XMin, *g.YMin, *g.XMax, *g.YMax)
		out = e
	case "esriGeometryPoint":
		if g.X == nil || g.Y == nil {
			return nil, sr, errors.New("a point needs x and y")
		}
		out = geom.NewPointFlat(geom.XY, []float64{*g.X, *g.Y})
	case "esriGeometryMultipoint":
		var flat []float64
		if flat, err = coords(g.Points, 1); err == nil {
			out = geom.NewMultiPointFlat(geom.XY, flat)
		}
	case "esriGeometryPolyline":
		out, err = lines(g.Paths)
	case "esriGeometryPolygon":
		out, err = polygons(g.Rings)
	default:
		return nil, sr, fmt.Errorf("geometryType %q is not esriGeometryEnvelope, Point, Multipoint, Polyline or Polygon", clip(typ))
	}
	if err != nil {
		return nil, sr, err
	}
	return out, sr, checkFinite(out)
}

func numbers(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) > 4 {
		return nil, errors.New("too many numbers")
	}
	out := make([]float64, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not a number", clip(p))
		}
		out[i] = f
	}
	return out, nil
}

func envelope(x0, y0, x1, y1 float64) (geom.T, SR, error) {
	if x0 > x1 || y0 > y1 {
		return nil, WGS84, errors.New("an envelope's minimum is above its maximum")
	}
	return geom.NewPolygonFlat(geom.XY, []float64{x0, y0, x1, y0, x1, y1, x0, y1, x0, y0}, []int{10}), WGS84, nil
}

func coords(pts [][]float64, minN int) ([]float64, error) {
	if len(pts) < minN {
		return nil, fmt.Errorf("a part needs at least %d vertices", minN)
	}
	if len(pts) > maxVertices {
		return nil, fmt.Errorf("a geometry has at most %d vertices", maxVertices)
	}
	flat := make([]float64, 0, 2*len(pts))
	for _, p := range pts {
		if len(p) < 2 {
			return nil, errors.New("a vertex needs x and y")
		}
		flat = append(flat, p[0], p[1])
	}
	return flat, nil
}

func lines(paths [][][]float64) (geom.T, error) {
	if len(paths) == 0 {
		return nil, errors.New("a polyline needs paths")
	}
	var flat []float64
	var ends []int
	for _, p := range paths {
		c, err := coords(p, 2)
		if err != nil {
			return nil, err
		}
		flat = append(flat, c...)
		ends = append(ends, len(flat))
		if len(flat) > 2*maxVertices {
			return nil, fmt.Errorf("a geometry has at most %d vertices", maxVertices)
		}
	}
	return geom.NewMultiLineStringFlat(geom.XY, flat, ends), nil
}

// polygons reads Esri rings: clockwise rings are outer, counterclockwise
// ones holes of the outer ring before them.
func polygons(rings [][][]float64) (geom.T, error) {
	if len(rings) == 0 {
		return nil, errors.New("a polygon needs rings")
	}
	mp := geom.NewMultiPolygon(geom.XY)
	var cur *geom.Polygon
	total := 0
	for _, r := range rings {
		c, err := coords(r, 4)
		if err != nil {
			return nil, err
		}
		if total += len(c); total > 2*maxVertices {
			return nil, fmt.Errorf("a geometry has at most %d vertices", maxVertices)
		}
		if c[0] != c[len(c)-2] || c[1] != c[len(c)-1] {
			c = append(c, c[0], c[1])
		}
		ring := geom.NewLinearRingFlat(geom.XY, c)
		if signedArea(c, 2) <= 0 || cur == nil { // clockwise: outer
			if cur != nil {
				if err := mp.Push(cur); err != nil {
					return nil, err
				}
			}
			cur = geom.NewPolygon(geom.XY)
		}
		if err := cur.Push(ring); err != nil {
			return nil, err
		}
	}
	if err := mp.Push(cur); err != nil {
		return nil, err
	}
	if mp.NumPolygons() == 1 {
		return mp.Polygon(0), nil
	}
	return mp, nil
}

// signedArea is positive for counterclockwise rings.
func signedArea(flat []float64, st int) float64 {
	a := 0.0
	n := len(flat) / st
	for i := 0; i < n-1; i++ {
		a += flat[i*st]*flat[(i+1)*st+1] - flat[(i+1)*st]*flat[i*st+1]
	}
	return a / 2
}

func checkFinite(g geom.T) error {
	for _, v := range g.FlatCoords() {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("its coordinates are not finite")
		}
	}
	return nil
}

// EsriGeometry is g as an Esri JSON geometry (no spatialReference): x/y,
// points, paths, or rings with outer rings clockwise and holes
// counterclockwise; nil for none.
func EsriGeometry(g geom.T) map[string]any {
	switch g := g.(type) {
	case *geom.Point:
		if g.Empty() {
			return nil
		}
		return map[string]any{"x": g.X(), "y": g.Y()}
	case *geom.MultiPoint:
		return map[string]any{"points": parts(g.FlatCoords(), g.Stride(), []int{len(g.FlatCoords())})[0]}
	case *geom.LineString:
		return map[string]any{"paths": parts(g.FlatCoords(), g.Stride(), []int{len(g.FlatCoords())})}
	case *geom.MultiLineString:
		return map[string]any{"paths": parts(g.FlatCoords(), g.Stride(), g.Ends())}
	case *geom.Polygon:
		return map[string]any{"rings": rings(g, nil)}
	case *geom.MultiPolygon:
		var out [][][2]float64
		for i := 0; i < g.NumPolygons(); i++ {
			out = rings(g.Polygon(i), out)
		}
		return map[string]any{"rings": out}
	}
	return nil
}

func parts(flat []float64, st int, ends []int) [][][2]float64 {
	out := make([][][2]float64, 0, len(ends))
	start := 0
	for _, e := range ends {
		p := make([][2]float64, 0, (e-start)/st)
		for i := start; i < e; i += st {
			p = append(p, [2]float64{flat[i], flat[i+1]})
		}
		out = append(out, p)
		start = e
	}
	return out
}

// rings appends a polygon's rings, the first clockwise and the rest
// counterclockwise, as Esri reads them.
func rings(p *geom.Polygon, out [][][2]float64) [][][2]float64 {
	flat, st := p.FlatCoords(), p.Stride()
	start := 0
	for i, e := range p.Ends() {
		r := make([][2]float64, 0, (e-start)/st)
		for j := start; j < e; j += st {
			r = append(r, [2]float64{flat[j], flat[j+1]})
		}
		ccw := signedArea(flat[start:e], st) > 0
		if (i == 0) == ccw {
			for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
				r[a], r[b] = r[b], r[a]
			}
		}
		out = append(out, r)
		start = e
	}
	return out
}

// geoJSONGeometry is g as a GeoJSON geometry object.
func geoJSONGeometry(g geom.T) any {
	b, err := geojson.Marshal(g)
	if err != nil {
		return nil
	}
	return json.RawMessage(b)
}
