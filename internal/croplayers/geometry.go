package croplayers

import (
	"fmt"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"
)

// MultiPolygon is a GeoJSON MultiPolygon in EPSG:4326.
type MultiPolygon struct {
	Type        string          `json:"type"`
	Coordinates [][][][]float64 `json:"coordinates"`
}

// Map is the geometry as a JSON object (the GraphQL Map scalar).
func (m *MultiPolygon) Map() map[string]any {
	if m == nil {
		return nil
	}
	polys := make([]any, len(m.Coordinates))
	for i, p := range m.Coordinates {
		rings := make([]any, len(p))
		for j, r := range p {
			pts := make([]any, len(r))
			for k, c := range r {
				pts[k] = []any{c[0], c[1]}
			}
			rings[j] = pts
		}
		polys[i] = rings
	}
	return map[string]any{"type": m.Type, "coordinates": polys}
}

// boxPolygon is a bounding box [minx, miny, maxx, maxy] as a MultiPolygon
// of one rectangle.
func boxPolygon(b [4]float64) *MultiPolygon {
	ring := [][]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}, {b[0], b[1]}}
	return &MultiPolygon{Type: "MultiPolygon", Coordinates: [][][][]float64{{ring}}}
}

// multiPolygon converts a WKB Polygon or MultiPolygon to a GeoJSON
// MultiPolygon (x and y of each position; coordinates unchanged).
func multiPolygon(b []byte) (*MultiPolygon, error) {
	g, err := wkb.Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("croplayers: reading a crop feature's geometry: %w", err)
	}
	var polys [][][]geom.Coord
	switch t := g.(type) {
	case *geom.Polygon:
		polys = [][][]geom.Coord{t.Coords()}
	case *geom.MultiPolygon:
		polys = t.Coords()
	default:
		return nil, fmt.Errorf("croplayers: a crop feature's geometry is a %T, not a polygon", g)
	}
	out := &MultiPolygon{Type: "MultiPolygon", Coordinates: make([][][][]float64, len(polys))}
	for i, p := range polys {
		out.Coordinates[i] = make([][][]float64, len(p))
		for j, r := range p {
			out.Coordinates[i][j] = make([][]float64, len(r))
			for k, c := range r {
				out.Coordinates[i][j][k] = []float64{c[0], c[1]}
			}
		}
	}
	return out, nil
}
