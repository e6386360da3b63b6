package mappreview

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/vectortiles"
)

// TilesPath is the path of the vector tiles the map draws (the route of
// ogc.TilesPath).
const TilesPath = "/services/tiles/v1"

// Map is what a page needs to draw one layer's or set's tiles.
type Map struct {
	// Tiles is the same-origin tile URL template, {z}/{x}/{y} left in.
	Tiles string
	// Bounds is the data's extent: west, south, east, north in degrees.
	Bounds [4]float64
	// Layers are the MVT layers of the tiles, in drawing order.
	Layers []string
}

// Config is the map's description for preview.js, as JSON.
func (m *Map) Config() string {
	b, _ := json.Marshal(struct {
		Tiles       string     `json:"tiles"`
		Bounds      [4]float64 `json:"bounds"`
		Layers      []string   `json:"layers"`
		MaxZoom     int        `json:"maxzoom"`
		Background  string     `json:"background"`
		Fill        string     `json:"fill"`
		FillOpacity float64    `json:"fillOpacity"`
		Line        string     `json:"line"`
		Point       string     `json:"point"`
	}{m.Tiles, m.Bounds, m.Layers, vectortiles.TileJSONMaxZoom, Background, FillColor, FillOpacity, LineColor, PointColor})
	return string(b)
}

// Kinds of objects a map shows.
const (
	Layer = "layer"
	Set   = "set"
)

// For returns the map of layer or set id (kind Layer or Set) as the
// caller p may see it through the tile services, nil when p may not use
// them (the object is not published, not a vector layer, its services are
// off or not permitted, or p's token lacks the tiles scope).
func For(ctx context.Context, tiles *vectortiles.Service, p auth.Principal, kind string, id int) (*Map, error) {
	if tiles == nil || !p.HasScope("tiles") || (kind != Layer && kind != Set) {
		return nil, nil
	}
	v, err := tiles.Viewer(ctx, p)
	if err != nil {
		return nil, err
	}
	template := TilesPath + "/" + kind + "=" + strconv.Itoa(id) + "/{z}/{x}/{y}.pbf"
	var tj *vectortiles.TileJSON
	if kind == Layer {
		tj, err = tiles.LayerTileJSON(ctx, v, id, template)
	} else {
		tj, err = tiles.SetTileJSON(ctx, v, id, template)
	}
	if errors.Is(err, vectortiles.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m := &Map{Tiles: template, Bounds: tj.Bounds}
	for _, l := range tj.VectorLayers {
		m.Layers = append(m.Layers, l.ID)
	}
	if len(m.Layers) == 0 {
		return nil, nil // a set with no member the caller may see
	}
	return m, nil
}
