package mappreview

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/vectortiles"
)

// TilesPath is the path of the vector and raster tiles the map draws (the
// route of ogc.TilesPath).
const TilesPath = "/services/tiles/v1"

// Map is what a page needs to draw one layer's or set's tiles.
type Map struct {
	// Tiles is the same-origin vector tile URL template, {z}/{x}/{y}
	// left in; "" when the map has no vector layers.
	Tiles string
	// Bounds is the data's extent: west, south, east, north in degrees.
	Bounds [4]float64
	// Layers are the MVT layers of the tiles, in drawing order.
	Layers []string
	// Rasters are the image tiles of grid and raster layers, in drawing
	// order, all drawn under the vector layers.
	Rasters []Raster
}

// Raster is one grid or raster layer's PNG tiles.
type Raster struct {
	// Tiles is the same-origin PNG tile URL template.
	Tiles   string     `json:"tiles"`
	Bounds  [4]float64 `json:"bounds"`
	MaxZoom int        `json:"maxzoom"`
}

// Config is the map's description for preview.js, as JSON.
func (m *Map) Config() string {
	b, _ := json.Marshal(struct {
		Tiles       string     `json:"tiles"`
		Bounds      [4]float64 `json:"bounds"`
		Layers      []string   `json:"layers"`
		MaxZoom     int        `json:"maxzoom"`
		Rasters     []Raster   `json:"rasters"`
		Background  string     `json:"background"`
		Fill        string     `json:"fill"`
		FillOpacity float64    `json:"fillOpacity"`
		Line        string     `json:"line"`
		Point       string     `json:"point"`
	}{m.Tiles, m.Bounds, nonNil(m.Layers), vectortiles.TileJSONMaxZoom, nonNil(m.Rasters), Background, FillColor, FillOpacity,
		LineColor, PointColor})
	return string(b)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Kinds of objects a map shows.
const (
	Layer = "layer"
	Set   = "set"
)

// Services are the tile services maps are drawn from. Raster may be nil:
// then grid and raster layers get no map.
type Services struct {
	Vector *vectortiles.Service
	Raster *rastertiles.Service
}

// For returns the map of layer or set id (kind Layer or Set) as the
// caller p may see it through the tile services, nil when p may not use
// them (the object is not published, its services are off or not
// permitted, or p's token lacks the tiles scope).
//
// A vector layer is drawn from its vector tiles (the rule of
// vectortiles' TileJSON), a grid or raster layer from its PNG tiles (the
// rule of rastertiles' TileJSON: tiles and raster-tile-json). A set draws
// its vector members from the set's vector tiles and, under them, each
// grid or raster member the caller may use as tiles from that member's
// PNG tiles, when the set's raster-tile-json is on.
func For(ctx context.Context, s Services, p auth.Principal, kind string, id int) (*Map, error) {
	if s.Vector == nil || !p.HasScope(auth.ScopeTiles) || (kind != Layer && kind != Set) {
		return nil, nil
	}
	v, err := s.Vector.Viewer(ctx, p)
	if err != nil {
		return nil, err
	}
	if kind == Layer {
		return layerMap(ctx, s, v, id)
	}
	return setMap(ctx, s, v, id)
}

func layerMap(ctx context.Context, s Services, v *access.Viewer, id int) (*Map, error) {
	l, err := s.Vector.UsableLayer(ctx, v, id, vectortiles.ServiceTiles)
	if errors.Is(err, vectortiles.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if l.Kind == layer.KindVector {
		template := vectorTemplate(Layer, id)
		return vectorMap(s.Vector.LayerTileJSON(ctx, v, id, template))
	}
	if s.Raster == nil {
		return nil, nil
	}
	r, err := rasterOf(ctx, s.Raster, v, id, rastertiles.ServiceTileJSON)
	if r == nil || err != nil {
		return nil, err
	}
	return &Map{Bounds: r.Bounds, Rasters: []Raster{*r}}, nil
}

func setMap(ctx context.Context, s Services, v *access.Viewer, id int) (*Map, error) {
	m, err := vectorMap(s.Vector.SetTileJSON(ctx, v, id, vectorTemplate(Set, id)))
	if err != nil || s.Raster == nil {
		return m, err
	}
	_, members, err := s.Vector.UsableSet(ctx, v, id, []string{rastertiles.ServiceTiles, rastertiles.ServiceTileJSON},
		[]string{rastertiles.ServiceTiles})
	if errors.Is(err, vectortiles.ErrNotFound) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	for _, l := range members {
		if l.Kind == layer.KindVector {
			continue
		}
		r, err := rasterOf(ctx, s.Raster, v, l.ID)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		if m == nil {
			m = &Map{Bounds: r.Bounds}
		}
		m.Bounds = union(m.Bounds, r.Bounds)
		m.Rasters = append(m.Rasters, *r)
	}
	return m, nil
}

func vectorTemplate(kind string, id int) string {
	return TilesPath + "/" + kind + "=" + strconv.Itoa(id) + "/{z}/{x}/{y}.pbf"
}

// vectorMap is the map of a vector TileJSON, nil when it was refused or
// names no layer (a set with no vector member the caller may see).
func vectorMap(tj *vectortiles.TileJSON, err error) (*Map, error) {
	if errors.Is(err, vectortiles.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m := &Map{Tiles: tj.Tiles[0], Bounds: tj.Bounds}
	for _, l := range tj.VectorLayers {
		m.Layers = append(m.Layers, l.ID)
	}
	if len(m.Layers) == 0 {
		return nil, nil
	}
	return m, nil
}

// rasterOf is layer id's PNG tiles if v may use them through the tiles
// service and svcs, nil if not.
func rasterOf(ctx context.Context, rs *rastertiles.Service, v *access.Viewer, id int, svcs ...string) (*Raster, error) {
	src, err := rs.LayerSource(ctx, v, id, svcs...)
	if errors.Is(err, rastertiles.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &Raster{Tiles: TilesPath + "/" + Layer + "=" + strconv.Itoa(id) + "/{z}/{x}/{y}.png", Bounds: src.Bounds,
		MaxZoom: src.MaxZoom}, nil
}

// union is the box covering a and b.
func union(a, b [4]float64) [4]float64 {
	return [4]float64{math.Min(a[0], b[0]), math.Min(a[1], b[1]), math.Max(a[2], b[2]), math.Max(a[3], b[3])}
}
