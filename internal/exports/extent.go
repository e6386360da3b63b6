package exports

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/airbusgeo/godal"
)

// area is a crop area: its WKB (EPSG:4326), bounding box and geometry.
type area struct {
	wkb  []byte
	box  [4]float64 // minx, miny, maxx, maxy
	geom *godal.Geometry
	// asked is the GeoJSON as given (nil for a crop feature), url the
	// crop-feature URL (empty for GeoJSON).
	asked map[string]any
	url   string
}

func (a *area) close() {
	if a != nil && a.geom != nil {
		a.geom.Close()
	}
}

// intersectsBox reports whether the area meets the box [minx, miny, maxx,
// maxy] (EPSG:4326): the boxes first, then the geometry itself.
func (a *area) intersectsBox(b [4]float64) (bool, error) {
	if b[2] < a.box[0] || b[0] > a.box[2] || b[3] < a.box[1] || b[1] > a.box[3] {
		return false, nil
	}
	wkt := fmt.Sprintf("POLYGON ((%[1]g %[2]g, %[3]g %[2]g, %[3]g %[4]g, %[1]g %[4]g, %[1]g %[2]g))", b[0], b[1], b[2], b[3])
	if b[0] == b[2] || b[1] == b[3] { // a point or a line: a degenerate box
		wkt = fmt.Sprintf("LINESTRING (%g %g, %g %g)", b[0], b[1], b[2], b[3])
	}
	g, err := godal.NewGeometryFromWKT(wkt, nil)
	if err != nil {
		return false, err
	}
	defer g.Close()
	return a.geom.Intersects(g)
}

// extentProblem is why a crop area cannot be used: the detail after
// "extent-invalid: ".
type extentProblem string

// parseGeoJSONArea checks a GeoJSON Polygon or MultiPolygon in EPSG:4326
// (a Feature holding one is accepted too): closed rings of at least four
// positions, longitudes within ±180 and latitudes within ±90, and a
// geometry GEOS finds valid.
// A crop area over MaxExtentVertices is an error, not a problem.
func parseGeoJSONArea(raw json.RawMessage) (*area, extentProblem, error) {
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, "give a GeoJSON Polygon or MultiPolygon, or a crop-feature URL", nil
	}
	geom := obj
	if t, _ := obj["type"].(string); t == "Feature" {
		g, ok := obj["geometry"].(map[string]any)
		if !ok {
			return nil, "the Feature has no geometry", nil
		}
		geom = g
	}
	var shape struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	b, _ := json.Marshal(geom)
	if err := json.Unmarshal(b, &shape); err != nil {
		return nil, "give a GeoJSON Polygon or MultiPolygon", nil
	}
	var polys [][][][]float64
	switch shape.Type {
	case "Polygon":
		var p [][][]float64
		if err := json.Unmarshal(shape.Coordinates, &p); err != nil {
			return nil, "the Polygon's coordinates are not a list of rings of [longitude, latitude] positions", nil
		}
		polys = [][][][]float64{p}
	case "MultiPolygon":
		if err := json.Unmarshal(shape.Coordinates, &polys); err != nil {
			return nil, "the MultiPolygon's coordinates are not a list of polygons of rings of [longitude, latitude] positions", nil
		}
	default:
		return nil, extentProblem(fmt.Sprintf("the geometry is a %q; give a Polygon or MultiPolygon in EPSG:4326", shape.Type)), nil
	}
	if err := checkExtentVertices(polys); err != nil {
		return nil, "", err
	}
	if len(polys) == 0 {
		return nil, "the MultiPolygon is empty", nil
	}
	for i, p := range polys {
		if len(p) == 0 {
			return nil, extentProblem(fmt.Sprintf("polygon %d has no rings", i+1)), nil
		}
		for j, ring := range p {
			if why := ringProblem(ring); why != "" {
				return nil, extentProblem(fmt.Sprintf("polygon %d, ring %d: %s", i+1, j+1, why)), nil
			}
		}
	}
	g, err := godal.NewGeometryFromGeoJSON(string(b))
	if err != nil {
		return nil, "GDAL could not read the geometry", nil
	}
	if !g.Valid() {
		g.Close()
		return nil, "the polygon is not valid (its rings cross or touch themselves)", nil
	}
	a := &area{geom: g, asked: obj}
	if err := a.fill(); err != nil {
		g.Close()
		return nil, "GDAL could not encode the geometry", nil
	}
	return a, "", nil
}

// fill computes the area's WKB and box from its geometry.
func (a *area) fill() error {
	box, err := a.geom.Bounds()
	if err != nil {
		return err
	}
	a.box = box
	a.wkb, err = a.geom.WKB()
	return err
}

// ringProblem says why a linear ring is unusable, "" when it is fine.
func ringProblem(ring [][]float64) string {
	if len(ring) < 4 {
		return "a ring needs at least four positions"
	}
	for _, p := range ring {
		if len(p) < 2 {
			return "a position needs a longitude and a latitude"
		}
		x, y := p[0], p[1]
		if math.IsNaN(x) || math.IsNaN(y) || x < -180 || x > 180 || y < -90 || y > 90 {
			return fmt.Sprintf("the position [%g, %g] is outside longitudes ±180 and latitudes ±90 (EPSG:4326)", x, y)
		}
	}
	first, last := ring[0], ring[len(ring)-1]
	if first[0] != last[0] || first[1] != last[1] {
		return "the ring is not closed (its last position differs from its first)"
	}
	return ""
}

// areaFromWKB builds an area from a crop feature's geometry.
func areaFromWKB(wkb []byte, url string) (*area, extentProblem) {
	g, err := godal.NewGeometryFromWKB(wkb, nil)
	if err != nil {
		return nil, "the crop feature's geometry could not be read"
	}
	a := &area{geom: g, url: url}
	if err := a.fill(); err != nil {
		g.Close()
		return nil, "the crop feature's geometry could not be encoded"
	}
	return a, ""
}

// isURL reports whether an extent was given as a string (a crop-feature
// URL) and returns it.
func isURL(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return strings.TrimSpace(s), true
}
